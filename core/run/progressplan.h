#pragma once
// Where each phase of a run sits in its progress bar: one table for the runner, the learners,
// the exact solver and the explorer (RunContext::slice maps each callee into its share, and
// fractions never go back). A phase boundary is a fraction of the share its caller gives it:
//
//   run         learner [0, kLearnerEnd or 1] · automaton execution [kExecuteStart, 1]
//   exact       generate+accumulate [0, kAccumulateEnd) · certificate+solve [kAccumulateEnd, 1]
//   poly        exact [0, 1) · evaluate at kEvaluateAt · explore [kExploreStart, 1]
//   trainer     exact [0, kTrainerExactEnd) with compare_exact · train [.., kTrainEnd]
//   explorer    min heads · certificate samples · null path · OOD execution · three probes ·
//               noise, at the boundaries in kExplorer*
namespace mhla::progress {

/// Run: the learner's share when an automaton's words are executed after it.
inline constexpr double kLearnerEnd = 0.95;
inline constexpr double kExecuteStart = 0.95;
/// Exact solver: accumulation ends, the certificate and the solve begin.
inline constexpr double kAccumulateEnd = 0.8;
/// Poly learner: evaluation, then the explorer to the end.
inline constexpr double kEvaluateAt = 0.85;
inline constexpr double kExploreStart = 0.9;
/// Trainer: the exact solver on the same data first (compare_exact), training to kTrainEnd,
/// evaluation after.
inline constexpr double kTrainerExactEnd = 0.3;
inline constexpr double kTrainEnd = 0.95;
/// Explorer, in its share: min heads [0, kMinHeadsEnd), certificate samples up to
/// kSamplesEnd, the null path up to kNullPathEnd, the automaton's OOD execution up to
/// kOodExecutionEnd, probe i in [kOodExecutionEnd + i kProbeWidth, + kProbeWidth), the noise
/// analysis from kNoiseStart.
inline constexpr double kMinHeadsEnd = 0.2;
inline constexpr double kSamplesEnd = 0.5;
inline constexpr double kNullPathEnd = 0.6;
inline constexpr double kOodExecutionEnd = 0.65;
inline constexpr double kProbeWidth = 0.1;
inline constexpr double kNoiseStart = 0.95;

} // namespace mhla::progress
