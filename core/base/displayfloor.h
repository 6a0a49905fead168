#pragma once
// The lowest value a log axis draws (one home for the plots of ui/plot and the sweep figures
// of core/sweep): Qt Charts' log axes break down far below it, so positive values under it
// are drawn at it and marked as such.

namespace mhla {

constexpr double kLogDisplayFloor = 1e-20;

} // namespace mhla
