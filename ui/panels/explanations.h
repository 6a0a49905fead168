#pragma once
// "What am I looking at?" texts: one per panel, written for a student who knows linear algebra
// but not the paper, with the key formulas.
#include <QString>
#include <QWidget>

namespace mhla::ui::explain {

QString certificate();
QString curves();
QString heads();
QString explorer();
QString automaton();
QString welcome();

/// A collapsible box with a "What am I looking at?" header and the rich text below it.
QWidget* makeHelpBox(const QString& html, QWidget* parent, bool expanded = false);

} // namespace mhla::ui::explain
