#pragma once
// The app's entry points into the desktop layer (the window, and the headless `figures`
// command, which draws with the ui layer's widgets), called by app/main.cpp.

namespace mhla::cli {

/// Opens the main window (QApplication). Returns the exit code.
int runGui(int argc, char** argv);
/// `mhla-lab figures --config FILE --out DIR`: writes every figure headless (offscreen
/// platform). Returns 0 on success, 2 for invalid input, 1 for an internal failure.
int runFigures(int argc, char** argv);

} // namespace mhla::cli
