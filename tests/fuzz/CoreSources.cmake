# The part of the core the parser fuzzer compiles (tests/fuzz/CMakeLists.txt). Kept in its own
# file so that the main configure step checks the same list (core/CMakeLists.txt): a new include
# in one of these files then stops every build, not only CI's fuzz stage an hour later.
#
# The parser and what it links against, and the results-folder reader: parsing no longer asks
# the tasks, the features or the machine (admission is core/run/), so the fuzzer compiles no
# kernel, no task generator and no RNG.
set(MHLA_FUZZ_CORE_SOURCES experiment/config experiment/datafiles experiment/keyinfo experiment/keytable
    experiment/loader base/fileio base/npy base/process algebra/model records/resultread records/tablereader)
# model.cpp and resultread.cpp include certificate.h and resultio.h for their types only; the
# parser files use only text.h's inline q().
set(MHLA_FUZZ_CORE_TYPES_ONLY algebra/certificate records/resultio base/text)
