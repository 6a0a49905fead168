// The command line against careless and unlucky input (issue 12): one data-driven suite, one
// row per case. A row gives the arguments (@T@ = a fresh temporary folder of the row), files
// and other things to plant first, the exit codes accepted, words stderr (or stdout, "out:")
// must and must not contain, and checks of the folder afterwards. Nothing is marked as an
// expected failure: a failing row is a bug in the command line.
#include "sanitizer.h"
#include "testutil.h"
#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QTest>
#include <dirent.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

// The "within" bounds say "fails fast, before running the experiment"; under AddressSanitizer
// every process start and allocation is several times slower, so the bound scales with it.
using mhla::test::kSlowdown;
using mhla::test::s;

/// Setup steps, run in the row's folder T, each "verb:argument":
///   file:NAME=TEXT     a file with this content (\n allowed)
///   dir:NAME           a folder
///   fifo:NAME          a named pipe
///   link:NAME->TARGET  a symbolic link (target as written)
///   tmpfs:NAME         a 64 KiB tmpfs at T/NAME filled to the last block (root only, else skip)
///   env-nodisplay      DISPLAY, WAYLAND_DISPLAY and QT_QPA_PLATFORM unset
///   stdout:PATH        stdout to PATH (e.g. /dev/full)
///   shell              args[0] is a /bin/bash -c script ($BIN = the binary, $T = the folder)
/// Checks after the run, each "verb:argument":
///   same:NAME=TEXT     the file still holds exactly TEXT
///   absent:NAME        nothing exists at T/NAME (lstat)
///   complete:DIR       every file in T/DIR is complete: no empty file, no temporary, JSON parses,
///                      CSV ends with a newline
///   only:NAME,NAME     T holds exactly these entries (compared as bytes)
///   within:MS          the run took less than MS milliseconds
///   clean:DIR          no file under T/DIR (recursively) holds a progress line ("ETA ")
struct Row {
    QStringList args;
    QStringList setup;
    QString codes;        ///< "2", "0", "0|2", "nonzero", "nosignal"
    QStringList contains; ///< in stderr, or "out:WORD" in stdout
    QStringList notContains = {};
    QStringList checks = {};
    int timeoutMs = 120000;
};

QStringList rawEntries(const QString& dir) {
    QStringList out;
    if (DIR* d = ::opendir(QFile::encodeName(dir).constData())) {
        while (dirent* e = ::readdir(d)) {
            const QByteArray n(e->d_name);
            if (n != "." && n != "..") out << QString::fromLatin1(n.toPercentEncoding());
        }
        ::closedir(d);
    }
    out.sort();
    return out;
}

bool fillDisk(const QString& dir) {
    // Fill the tmpfs: one file as large as it goes.
    QFile f(QDir(dir).filePath(s("filler")));
    if (!f.open(QIODevice::WriteOnly)) return false;
    const QByteArray block(4096, 'f');
    while (f.write(block) == block.size() && f.flush()) {
    }
    f.close();
    return true;
}
} // namespace

Q_DECLARE_METATYPE(Row)

class TestCliBadInput : public QObject {
    Q_OBJECT
private:
    QStringList m_mounts;

    static void add(const char* name, Row r) { QTest::newRow(name) << r; }

private Q_SLOTS:
    void cleanupTestCase() {
        for (const QString& m : m_mounts) ::umount2(QFile::encodeName(m).constData(), MNT_DETACH);
    }

    void badInput_data() {
        QTest::addColumn<Row>("row");
        const QString bigPoly = s(
            "--set task.kind=random_mhla --set task.d=8 --set task.d_out=8 --set task.samples=3000000");
        const QStringList big = bigPoly.split(QLatin1Char(' '));
        // Existing cases (tests/tst_cli.cpp), kept here so the whole campaign is one table.
        add("malformed file", {{s("solve"), s("--config"), s("@T@/bad.json")},
                               {s("file:bad.json={\"task\": {\"samples\": 10,}")},
                               s("2"),
                               {s("malformed JSON")}});
        add("missing file", {{s("solve"), s("--config"), s("@T@/nope.json")},
                             {},
                             s("2"),
                             {s("cannot read"), s("No such file")}});
        add("unknown key",
            {{s("solve"), s("--set"), s("task.foo=1")}, {}, s("2"), {s("task.foo")}});
        add("wrong type",
            {{s("solve"), s("--set"), s("task.samples=lots")}, {}, s("2"), {s("task.samples")}});
        add("negative size",
            {{s("solve"), s("--set"), s("task.samples=-5")}, {}, s("2"), {s("task.samples")}});
        add("pairs out of range",
            {{s("solve"), s("--set"), s("task.pairs=0")}, {}, s("2"), {s("task.pairs")}});
        add("states out of range",
            {{s("solve"), s("--set"), s("task.kind=automaton"), s("--set"), s("task.states=1")},
             {},
             s("2"),
             {s("task.states")}});
        add("alphabet out of range",
            {{s("solve"), s("--set"), s("task.kind=automaton"), s("--set"), s("task.alphabet=99")},
             {},
             s("2"),
             {s("task.alphabet")}});
        add("probability", {{s("solve"), s("--set"), s("task.orthogonal_prob=2")},
                            {},
                            s("2"),
                            {s("task.orthogonal_prob")}});
        add("NaN", {{s("solve"), s("--set"), s("task.noise=NaN")}, {}, s("2"), {s("NaN")}});
        add("infinite", {{s("solve"), s("--set"), s("task.kind=automaton"), s("--set"),
                          s("task.query_filler=-inf")},
                         {},
                         s("2"),
                         {s("infinite")}});
        add("memory d=60",
            {{s("solve"), s("--set"), s("task.kind=random_mhla"), s("--set"), s("task.d=60")},
             {},
             s("2"),
             {s("GiB")},
             {s("bad_alloc")},
             {s("within:5000")}});
        add("unwritable out (file in the way of a parent)",
            {{s("solve"), s("--out"), s("@T@/a-file/sub")},
             {s("file:a-file=")},
             s("2"),
             {s("--out"), s("Not a directory")}});
        add("unknown option", {{s("solve"), s("--frobnicate")}, {}, s("2"), {s("frobnicate")}});
        add("threads 0", {{s("solve"), s("--threads"), s("0")}, {}, s("2"), {s("--threads")}});
        add("threads abc", {{s("solve"), s("--threads"), s("abc")}, {}, s("2"), {s("--threads")}});
        add("threads 1024", {{s("solve"), s("--threads"), s("1024")},
                             {},
                             s("2"),
                             {s("--threads")},
                             {s("terminate")}});
        add("bad seeds", {{s("solve"), s("--seeds"), s("-2")}, {}, s("2"), {s("--seeds")}});
        add("unknown command", {{s("sovle")}, {}, s("2"), {s("unknown command")}});
        add("bench option", {{s("bench"), s("--repeats"), s("x")}, {}, s("2"), {s("--repeats")}});

        // Crashes.
        add("solve --config /dev/zero", {{s("solve"), s("--config"), s("/dev/zero")},
                                         {},
                                         s("2"),
                                         {s("not a regular file")},
                                         {s("bad_alloc")},
                                         {s("within:5000")}});
        add("figures --config /dev/zero",
            {{s("figures"), s("--config"), s("/dev/zero"), s("--out"), s("@T@/f")},
             {},
             s("2"),
             {s("not a regular file")},
             {s("bad_alloc")}});
        add("solve --config FIFO", {{s("solve"), s("--config"), s("@T@/pipe")},
                                    {s("fifo:pipe")},
                                    s("2"),
                                    {s("not a regular file")},
                                    {},
                                    {},
                                    10000});
        add("figures --config FIFO",
            {{s("figures"), s("--config"), s("@T@/pipe"), s("--out"), s("@T@/f")},
             {s("fifo:pipe")},
             s("2"),
             {s("not a regular file")},
             {},
             {},
             10000});
        add("--bogus without display",
            {{s("--bogus")}, {s("env-nodisplay")}, s("2"), {s("--bogus")}, {s("platform plugin")}});
        add("--verison without display", {{s("--verison")},
                                          {s("env-nodisplay")},
                                          s("2"),
                                          {s("did you mean --version")},
                                          {s("platform plugin")}});
        add("swep (a misspelt sweep)", {{s("swep")},
                                        {s("env-nodisplay")},
                                        s("2"),
                                        {s("did you mean sweep")},
                                        {s("platform plugin")}});
        add("layers 64 heads 1048576",
            {{s("solve"), s("--set"), s("task.kind=random_mhla"), s("--set"),
              s("solver.kind=multilayer"), s("--set"), s("solver.layers=64"), s("--set"),
              s("solver.heads=1048576")},
             {},
             s("2"),
             {s("GiB")},
             {s("bad_alloc")},
             {s("within:5000")}});

        // Data loss and writes where they must not go.
        add("solve > /dev/full", {{s("solve"), s("--set"), s("task.samples=2000")},
                                  {s("stdout:/dev/full")},
                                  s("nonzero"),
                                  {s("No space left on device")}});
        add("disk full: solve --out",
            {{s("solve"), s("--set"), s("task.samples=2000"), s("--out"), s("@T@/full/out")},
             {s("tmpfs:full"), s("file:e.json={}")},
             s("nonzero"),
             {s("No space left on device")},
             {},
             {s("complete:full/out")}});
        add("disk full: figures --out", {{s("figures"), s("--config"), s("@T@/e.json"), s("--set"),
                                          s("task.samples=2000"), s("--out"), s("@T@/full/out")},
                                         {s("tmpfs:full"), s("file:e.json={}")},
                                         s("nonzero"),
                                         {s("No space left on device")},
                                         {},
                                         {s("complete:full/out")}});
        add("planted symlink in --out", {{s("solve"), s("--set"), s("task.samples=2000"),
                                          s("--out"), s("@T@/out"), s("--force")},
                                         {s("file:outside.txt=precious"), s("dir:out"),
                                          s("link:out/spectrum.csv->../outside.txt")},
                                         s("0|2"),
                                         {},
                                         {},
                                         {s("same:outside.txt=precious")}});
        add("dangling symlink in --out", {{s("solve"), s("--set"), s("task.samples=2000"),
                                           s("--out"), s("@T@/out"), s("--force")},
                                          {s("dir:out"), s("link:out/heads.csv->../elsewhere.csv")},
                                          s("0|2"),
                                          {},
                                          {},
                                          {s("absent:elsewhere.csv")}});
        add("non-UTF-8 --out",
            {{s("cd \"$T\" && exec \"$BIN\" solve --set task.samples=2000 --out \"$(printf 'od\\377')\"")},
             {s("shell")},
             s("0|2"),
             {},
             {},
             {s("only:od%FF")}});
        // figures shares solve's path check (issue 22): it used to write its 33 files into
        // "od\xef\xbf\xbd" (the replacement character) and exit 0.
        add("figures: non-UTF-8 --out",
            {{s("cd \"$T\" && printf '{\"task\":{\"samples\":2000}}' > e.json && exec \"$BIN\" figures --config e.json --out \"$(printf 'od\\377')\"")},
             {s("shell")},
             s("2"),
             {s("--out: the path is not valid UTF-8")},
             {},
             {s("only:e.json")}});
        add("non-UTF-8 --config",
            {{s("cd \"$T\" && printf '{\"task\":{\"samples\":2000}}' > \"$(printf 'c\\377.json')\" && exec \"$BIN\" solve --config \"$(printf 'c\\377.json')\"")},
             {s("shell")},
             s("0|2"),
             {},
             {s("No such file")},
             {}});
        add("solve --out DIR | head -3",
            {{s("set -o pipefail; \"$BIN\" solve --set task.kind=random_mhla --set task.samples=2000 --set solver.kind=mhla --set solver.heads=1 --set solver.epochs=400 --out \"$T/out\" | head -3 > /dev/null")},
             {s("shell")},
             s("nosignal"),
             {},
             {},
             {s("complete:out")}});
        add("figures: unwritable --out fails first",
            {(QStringList{s("figures"), s("--config"), s("@T@/e.json"), s("--out"), s("/proc/x")} +
              big),
             {s("file:e.json={}")},
             s("2"),
             {s("/proc/x")},
             {},
             {s("within:2000")}});
        add("figures: file in the way fails first",
            {(QStringList{s("figures"), s("--config"), s("@T@/e.json"), s("--out"),
                          s("@T@/plain")} +
              big),
             {s("file:plain=x"), s("file:e.json={}")},
             s("2"),
             {s("plain")},
             {},
             {s("within:2000")}});

        // Input that is accepted and should not be.
        add("duplicate key", {{s("solve"), s("--config"), s("@T@/dup.json")},
                              {s("file:dup.json={\"task\": {\"d\": 4, \"d\": 6}}")},
                              s("2"),
                              {s("task.d")}});
        add("duplicate section",
            {{s("solve"), s("--config"), s("@T@/dup.json")},
             {s("file:dup.json={\"task\": {\"samples\": 100}, \"task\": {\"samples\": 200}}")},
             s("2"),
             {s("task")}});
        add("heads 17 at d=4",
            {{s("solve"), s("--set"), s("task.kind=random_mhla"), s("--set"), s("solver.heads=17")},
             {},
             s("2"),
             {s("solver.heads")}});
        add("heads 1048576", {{s("solve"), s("--set"), s("task.kind=random_mhla"), s("--set"),
                               s("solver.heads=1048576")},
                              {},
                              s("2"),
                              {s("solver.heads")}});
        add("task.d with associative memory",
            {{s("solve"), s("--set"), s("task.d=8")}, {}, s("2"), {s("task.d"), s("task.pairs")}});
        add("seed 2^53 single solve", {{s("solve"), s("--set"), s("task.seed=9007199254740992"),
                                        s("--set"), s("task.samples=2000")},
                                       {},
                                       s("0|2"),
                                       {},
                                       {s("--seeds")}});
        add("solve --help joins words", {{s("solve"), s("--help")},
                                         {},
                                         s("0"),
                                         {s("out:associative_memory")},
                                         {s("out:associative_memoryone of")}});
        add("integer shown as given",
            {{s("solve"), s("--set"), s("task.samples=1000.0000000000001")},
             {},
             s("2"),
             {s("1000.0000000000001")}});
        add("whole file a number", {{s("solve"), s("--config"), s("@T@/n.json")},
                                    {s("file:n.json=42")},
                                    s("2"),
                                    {s("must be a JSON object"), s("n.json")}});
        add("whole file null", {{s("solve"), s("--config"), s("@T@/n.json")},
                                {s("file:n.json=null")},
                                s("2"),
                                {s("must be a JSON object")}});
        add("whole file a string", {{s("solve"), s("--config"), s("@T@/n.json")},
                                    {s("file:n.json=\"task\"")},
                                    s("2"),
                                    {s("must be a JSON object")}});
        add("figures: whole file a number names it",
            {{s("figures"), s("--config"), s("@T@/n.json"), s("--out"), s("@T@/f")},
             {s("file:n.json=42")},
             s("2"),
             {s("must be a JSON object"), s("n.json")}});
        add("solve --out read-only folder", {{s("solve"), s("--out"), s("@T@/ro/x")},
                                             {s("dir:ro"), s("readonly:ro")},
                                             s("2"),
                                             {s("Permission denied")}});
        add("solve --out plain file", {{s("solve"), s("--out"), s("@T@/plain")},
                                       {s("file:plain=x")},
                                       s("2"),
                                       {s("plain"), s("not a folder")}});
        add("solve --out /proc/x", {{s("solve"), s("--out"), s("/proc/x")},
                                    {},
                                    s("2"),
                                    {s("/proc/x"), s("No such file or directory")}});
        add("figures --out read-only folder",
            {{s("figures"), s("--config"), s("@T@/e.json"), s("--out"), s("@T@/ro/x")},
             {s("dir:ro"), s("readonly:ro"), s("file:e.json={}")},
             s("2"),
             {s("Permission denied")}});
        add("figures --out /proc/x",
            {{s("figures"), s("--config"), s("@T@/e.json"), s("--out"), s("/proc/x")},
             {s("file:e.json={}")},
             s("2"),
             {s("/proc/x"), s("No such file or directory")}});

        // Runs that take hours without a word: refused with an estimate unless --yes.
        add("ood_samples 1e9", {{s("solve"), s("--set"), s("eval.ood_samples=1e9")},
                                {},
                                s("2"),
                                {s("estimate"), s("--yes")},
                                {},
                                {s("within:2000")},
                                10000});
        add("epochs 1e7", {{s("solve"), s("--set"), s("solver.kind=mhla"), s("--set"),
                            s("solver.heads=1"), s("--set"), s("solver.epochs=1e7")},
                           {},
                           s("2"),
                           {s("estimate"), s("--yes")},
                           {},
                           {s("within:2000")},
                           10000});
        add("words 1e7 x 1e5", {{s("solve"), s("--set"), s("task.kind=automaton"), s("--set"),
                                 s("eval.words=1e7"), s("--set"), s("task.word_length=1e5")},
                                {},
                                s("2"),
                                {s("estimate"), s("--yes")},
                                {},
                                {s("within:2000")},
                                10000});
        add("d=36 with 4096 samples",
            {{s("solve"), s("--set"), s("task.kind=random_mhla"), s("--set"), s("task.d=36"),
              s("--set"), s("task.samples=4096")},
             {},
             s("2"),
             {s("estimate")},
             {},
             {s("within:2000")},
             10000});
        // Issue 26: seeds exact or refused; control characters escaped; Slurm scripts no path
        // can break; closed standard streams.
        add("seed above 2^53",
            {{s("solve"), s("--set"), s("task.seed=9007199254740993")},
             {},
             s("2"),
             {s("task.seed: 9007199254740993 is out of range"), s("<= 9007199254740992")},
             {},
             {s("within:5000")}});
        add("solver seed above 2^53", {{s("solve"), s("--set"), s("solver.seed=18014398509481985")},
                                       {},
                                       s("2"),
                                       {s("solver.seed: 18014398509481985 is out of range")}});
        add("seed above 2^53 in a file",
            {{s("solve"), s("--config"), s("@T@/e.json")},
             {s("file:e.json={\"task\": {\"seed\": 9007199254740993}}")},
             s("2"),
             {s("task.seed: 9007199254740993 is out of range")}});
        // Written with a fraction or an exponent, the parser would round these to an integer
        // in range (...992) without a word.
        add("seed above 2^53 written with a fraction",
            {{s("solve"), s("--set"), s("task.seed=9007199254740993.0")},
             {},
             s("2"),
             {s("task.seed: 9007199254740993.0 is out of range"), s("2^53")}});
        add("seed above 2^53 written with an exponent, in a file",
            {{s("solve"), s("--config"), s("@T@/e.json")},
             {s("file:e.json={\"task\": {\"seed\": 9.007199254740993e15}}")},
             s("2"),
             {s("task.seed: 9.007199254740993e15 is out of range")}});
        add("a fraction the parser would round away, in a file",
            {{s("solve"), s("--config"), s("@T@/e.json")},
             {s("file:e.json={\"solver\": {\"seed\": 4503599627370495.2}}")},
             s("2"),
             {s("solver.seed: 4503599627370495.2 is not an integer")}});
        add("seed above 2^53 in a file's grid",
            {{s("sweep"), s("--config"), s("@T@/e.json"), s("--out"), s("@T@/s")},
             {s("file:e.json={\"sweep\": {\"grid\": {\"task.seed\": [1, 9007199254740993.0]}}}")},
             s("2"),
             {s("sweep.grid.task.seed: 9007199254740993.0 is out of range")}});
        add("seed above 2^53 in --grid, listed and as a range",
            {{s("sweep"), s("--out"), s("@T@/s"), s("--grid"), s("task.seed=1,9007199254740993.0")},
             {},
             s("2"),
             {s("--grid task.seed: 9007199254740993.0 is out of range")}});
        add("seed above 2^53 in a --grid range",
            {{s("sweep"), s("--out"), s("@T@/s"), s("--grid"),
              s("task.seed=9007199254740990:9.007199254740994e15:1")},
             {},
             s("2"),
             {s("--grid task.seed: 9.007199254740994e15 is out of range")}});
        add("a --grid seed range near 2^53 steps exactly (it was rounded to 15 digits)",
            {{s("sweep"), s("--out"), s("@T@/s"), s("--grid"),
              s("task.seed=9007199254740989:9007199254740990:1"), s("--set"), s("task.samples=64")},
             {},
             s("0"),
             {s("seed=9007199254740989-"), s("seed=9007199254740990-")}});
        add("seed above 2^53 in a --grid JSON list",
            {{s("sweep"), s("--out"), s("@T@/s"), s("--grid"),
              s("task.seed=[1, 9.007199254740993e15]")},
             {},
             s("2"),
             {s("--grid task.seed: 9.007199254740993e15 is out of range")}});
        add("1.5e3 is an exact integer and allowed",
            {{s("solve"), s("--set"), s("task.samples=64"), s("--set"), s("task.seed=1.5e3")},
             {},
             s("0"),
             {s("out:1500")}});
        add("seed 2^53 itself is exact and allowed",
            {{s("solve"), s("--set"), s("task.seed=9007199254740992"), s("--set"),
              s("task.samples=64")},
             {},
             s("0"),
             {s("out:9007199254740992")}});
        add("NUL in a key", {{s("solve"), s("--config"), s("@T@/e.json")},
                             {s("file:e.json={\"task\": {\"sam\\u0000ples\": 1}}")},
                             s("2"),
                             {s("task.sam\\x00ples\"")}});
        add("escape sequence in a key", {{s("solve"), s("--config"), s("@T@/e.json")},
                                         {s("file:e.json={\"task\": {\"\\u001b[2Jred\": 1}}")},
                                         s("2"),
                                         {s("task.\\x1B[2Jred")},
                                         {s("\x1b")}});
        add("slurm: newline in --out",
            {{s("$BIN sweep slurm --out \"$T/a\"$'\\n'\"touch $T/pwned\" --shards 1")},
             {s("shell")},
             s("2"),
             {s("--out"), s("control character"), s("\\x0A")},
             {},
             {s("absent:pwned"), s("only:e.json")}});
        // Issue 26 item 10: a process limit (ulimit -u) refuses threads. The worker pool then
        // runs on the threads it got (solve) and a sweep on fewer jobs: the same numbers, exit 0,
        // where it was "internal error: Resource temporarily unavailable". Root ignores the
        // limit, so as root the runs are made by nobody (from a copy of the binary: root A builds
        // in /root, which nobody cannot enter); LeakSanitizer needs a thread at exit, so not under
        // ASan.
        if (kSlowdown == 1)
            add("a process limit: solve and sweep run on the threads they get, same numbers",
                {{s("limit() { if [ \"$(id -u)\" = 0 ]; then prlimit --nproc=1 setpriv --reuid 65534 "
                    "--regid 65534 --clear-groups \"$@\"; else prlimit --nproc=1 \"$@\"; fi; }; "
                    "chmod 777 \"$T\"; cp \"$BIN\" \"$T/bin\"; chmod 755 \"$T/bin\"; "
                    "A='--set task.kind=random_mhla --set task.samples=20000 "
                    "--set task.d=8'; "
                    "limit \"$T/bin\" solve --threads 2 $A --out \"$T/limited\" > /dev/null && "
                    "\"$BIN\" solve --threads 1 $A --out \"$T/free\" > /dev/null && "
                    "cmp \"$T/limited/heads.csv\" \"$T/free/heads.csv\" && "
                    "limit \"$T/bin\" sweep --jobs 2 --out \"$T/s\" --grid task.seed=1,2 --set "
                    "task.samples=2000 && echo same")},
                 {s("shell")},
                 s("0"),
                 {s("out:same"), s("wrote")},
                 {s("internal error")},
                 {s("complete:s")}});
        add("figures: an escape sequence in --out is printed escaped",
            {{s("figures"), s("--config"), s("@T@/e.json"), s("--out"), s("@T@/f/x\x1b[2Jy")},
             {s("file:e.json={\"task\": {\"samples\": 64}}"), s("file:f=not a folder")},
             s("2"),
             {s("cannot write to --out"), s("x\\x1B[2Jy")},
             {s("\x1b")}});
        add("an escape sequence in an unknown command is printed escaped",
            {{s("solv\x1b[2Je")}, {}, s("2"), {s("solv\\x1B[2Je")}, {s("\x1b")}});
        add("slurm: escape in --config",
            {{s("$BIN sweep slurm --config \"$T/e\"$'\\e'\"x.json\" --out \"$T/s\" --shards 1")},
             {s("shell")},
             s("2"),
             {s("--config"), s("control character"), s("\\x1B")},
             {s("\x1b")},
             {s("absent:s")}});
        add("slurm: more shards than runs",
            {{s("sweep"), s("slurm"), s("--out"), s("@T@/s"), s("--grid"), s("task.seed=1,2"),
              s("--shards"), s("100000")},
             {},
             s("2"),
             {s("--shards: 100000 is more than the 2 runs"), s("[1, 2]")},
             {},
             {s("absent:s")}});
        add("slurm: no grid is refused before a sweep.json its shards would refuse",
            {{s("sweep"), s("slurm"), s("--out"), s("@T@/s"), s("--shards"), s("1")},
             {},
             s("2"),
             {s("no swept key"), s("--grid KEY=VALUES")},
             {},
             {s("absent:s")}});
        add("sweep --jobs 2 with stdout and stderr closed",
            {{s("$BIN sweep --out \"$T/s\" --grid task.seed=1:16:1 --set task.samples=400 --jobs 2 "
                ">&- 2>&-")},
             {s("shell")},
             s("0"),
             {},
             {},
             {s("clean:s")}});
        // Issue 26 item 6: sweep and figures get the estimate and the 10-minute/--yes rule of
        // solve; a certain certificate failure is in the estimate; the grid's count comes first.
        add("sweep: a 10^6-point grid is refused by its count, before validation",
            {{s("sweep"), s("--out"), s("@T@/s"), s("--grid"), s("task.samples=1:1000:1"),
              s("--grid"), s("task.seed=1:1000:1")},
             {},
             s("2"),
             {s("1000000 points x 1 seeds = 1000000 runs, more than 1000"), s("--yes")},
             {},
             {s("within:1000"), s("absent:s")}});
        add("sweep: hours of runs need --yes",
            {{s("sweep"), s("--out"), s("@T@/s"), s("--grid"), s("task.seed=1:3:1"), s("--set"),
              s("task.kind=random_mhla"), s("--set"), s("task.d=16"), s("--set"),
              s("task.samples=10000000")},
             {},
             s("2"),
             {s("estimate: 3 runs"), s("this sweep is estimated at"), s("--yes")},
             {},
             {s("within:3000"), s("absent:s")}});
        add("sweep: --jobs x the largest run must fit in memory",
            {{s("sweep"), s("--out"), s("@T@/s"), s("--grid"), s("task.seed=1:16:1"), s("--set"),
              s("solver.kind=mhla"), s("--set"), s("solver.heads=65536"), s("--set"),
              s("task.samples=512"), s("--set"), s("solver.epochs=1"), s("--jobs"), s("16")},
             {},
             s("2"),
             {s("--jobs: solver.heads = 65536"), s("for 16 runs at once (--jobs)")},
             {},
             {s("within:3000"), s("absent:s")}});
        add("figures: a run of hours needs --yes",
            {{s("figures"), s("--config"), s("@T@/e.json"), s("--out"), s("@T@/f"), s("--set"),
              s("task.kind=random_mhla"), s("--set"), s("task.d=16"), s("--set"),
              s("task.samples=10000000")},
             {s("file:e.json={}")},
             s("2"),
             {s("estimate:"), s("this run is estimated at"), s("--yes")},
             {},
             {s("within:3000"), s("absent:f")}});
        add("figures: a sweep of hours needs --yes",
            {{s("figures"), s("--config"), s("@T@/e.json"), s("--out"), s("@T@/f")},
             {s("file:e.json={\"task\": {\"kind\": \"random_mhla\", \"d\": 16, "
                "\"samples\": 10000000}, \"sweep\": {\"grid\": {\"task.seed\": [1, 2]}}}")},
             s("2"),
             {s("this sweep is estimated at"), s("--yes")},
             {},
             {s("within:3000"), s("absent:f")}});
        add("figures: a 10^6-point grid is refused by its count",
            {{s("figures"), s("--config"), s("@T@/e.json"), s("--out"), s("@T@/f"), s("--grid"),
              s("task.seed=1:1000:1")},
             {s("file:e.json={\"sweep\": {\"grid\": {\"task.samples\": \"1:1000:1\"}}}")},
             s("2"),
             {s("1000000 runs, more than 1000"), s("--yes")},
             {},
             {s("within:1000"), s("absent:f")}});
        add("solve: N < D makes the failure path certain (d = 28, N = 200)",
            {{s("solve"), s("--set"), s("task.kind=random_mhla"), s("--set"), s("task.d=28"),
              s("--set"), s("task.samples=200")},
             {},
             s("2"),
             {s("N < D"), s("this run is estimated at"), s("--yes")},
             {},
             {s("within:3000")}});
        // Issue 26 item 11: the drawing's cost is checked before anything runs.
        add("figures: --size 20000x20000 is refused with the allowed pixel count",
            {{s("figures"), s("--config"), s("@T@/e.json"), s("--out"), s("@T@/f"), s("--size"),
              s("20000x20000"), s("--dpi"), s("2400")},
             {s("file:e.json={}")},
             s("2"),
             {s("--size"), s("400.0 megapixels"), s("allowed: at most 40 megapixels")},
             {},
             {s("within:2000"), s("absent:f")}});
        add("figures: --dpi 2400 for a paper figure is refused the same way",
            {{s("figures"), s("--config"), s("@T@/e.json"), s("--out"), s("@T@/f"), s("--style"),
              s("paper-2col"), s("--dpi"), s("2400")},
             {s("file:e.json={}")},
             s("2"),
             {s("--dpi 2400 with --style paper-2col"), s("megapixels")},
             {},
             {s("within:2000"), s("absent:f")}});
        // Issue 26 item 10: messages that name the option the user gave and say what to do.
        add("sweep: --grid of a key poly does not read names --grid",
            {{s("sweep"), s("--out"), s("@T@/s"), s("--grid"), s("solver.lr=0.1,0.2")},
             {},
             s("2"),
             {s("--grid solver.lr: this run")},
             {s("--set solver.lr")},
             {s("absent:s")}});
        add("sweep: a file's grid key poly does not read is named as the file has it",
            {{s("sweep"), s("--config"), s("@T@/e.json"), s("--out"), s("@T@/s")},
             {s("file:e.json={\"sweep\": {\"grid\": {\"solver.lr\": [0.1, 0.2]}}}")},
             s("2"),
             {s("sweep.grid.solver.lr: this run")},
             {s("--grid solver.lr")},
             {s("absent:s")}});
        add("sweep without a grid: merge reads the sweep.json it wrote",
            {{s("$BIN sweep --out \"$T/s\" --seeds 2 --set task.samples=64 && $BIN sweep merge "
                "--out \"$T/m\" \"$T/s\"")},
             {s("shell")},
             s("0"),
             {s("2 of 2 present")},
             {s("empty")},
             {s("complete:m")}});
        add("UTF-16 experiment file (BOM and NULs)",
            {{s("printf '\\xff\\xfe{\\x00}\\x00' > \"$T/e.json\"; $BIN solve --config \"$T/e.json\"")},
             {s("shell")},
             s("2"),
             {s("UTF-16"), s("save it as UTF-8")}});
        add("UTF-16 experiment file without a BOM",
            {{s("printf '{\\x00}\\x00' > \"$T/e.json\"; $BIN solve --config \"$T/e.json\"")},
             {s("shell")},
             s("2"),
             {s("UTF-16 (it holds NUL bytes)"), s("save it as UTF-8")}});
        add("solve --force with a folder named result.json fails before computing",
            {{s("solve"), s("--out"), s("@T@/o"), s("--force"), s("--set"),
              s("task.samples=3000000")},
             {s("dir:o/result.json")},
             s("2"),
             {s("result.json\" is not a regular file")},
             {},
             {s("within:3000")}});
        add("QT_QPA_PLATFORM=offscreen mhla-lab DIR names the platform, not DISPLAY",
            {{s("QT_QPA_PLATFORM=offscreen $BIN \"$T\"")},
             {s("shell")},
             s("2"),
             {s("QT_QPA_PLATFORM=offscreen draws no window")},
             {s("DISPLAY is not set")}});
        add("solve with stdout closed says so", {{s("$BIN solve --set task.samples=64 >&-")},
                                                 {s("shell")},
                                                 s("2"),
                                                 {s("standard output is closed"), s("--out DIR")},
                                                 {},
                                                 {s("within:3000")}});
        add("seeds 1000 with huge samples",
            {{s("solve"), s("--seeds"), s("1000"), s("--set"), s("task.samples=10000000")},
             {},
             s("2"),
             {s("estimate"), s("--yes")},
             {},
             {s("within:2000")},
             10000});
    }

    void badInput() {
        QFETCH(Row, row);
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString T = tmp.path();
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        bool shell = false;
        for (const QString& step : row.setup) {
            const QString verb = step.section(QLatin1Char(':'), 0, 0);
            const QString arg = step.section(QLatin1Char(':'), 1);
            if (verb == s("file")) {
                QFile f(QDir(T).filePath(arg.section(QLatin1Char('='), 0, 0)));
                QVERIFY(f.open(QIODevice::WriteOnly));
                f.write(arg.section(QLatin1Char('='), 1).toUtf8());
            } else if (verb == s("dir")) {
                QVERIFY(QDir(T).mkpath(arg));
            } else if (verb == s("fifo")) {
                QCOMPARE(::mkfifo(QFile::encodeName(QDir(T).filePath(arg)).constData(), 0600), 0);
            } else if (verb == s("link")) {
                QVERIFY(QFile::link(arg.section(s("->"), 1),
                                    QDir(T).filePath(arg.section(s("->"), 0, 0))));
            } else if (verb == s("readonly")) {
                if (::geteuid() == 0) QSKIP("root ignores folder permissions");
                QVERIFY(QFile::setPermissions(QDir(T).filePath(arg),
                                              QFileDevice::ReadOwner | QFileDevice::ExeOwner));
            } else if (verb == s("tmpfs")) {
                const QString dir = QDir(T).filePath(arg);
                QVERIFY(QDir().mkpath(dir));
                if (::geteuid() != 0)
                    QSKIP("not root: cannot mount a 64 KiB tmpfs to fill the disk");
                if (::mount("tmpfs", QFile::encodeName(dir).constData(), "tmpfs", 0, "size=64k") !=
                    0)
                    QSKIP(qPrintable(s("mount -t tmpfs -o size=64k failed: ") +
                                     QString::fromLocal8Bit(strerror(errno))));
                m_mounts << dir;
                QVERIFY(fillDisk(dir));
                QVERIFY(QDir(dir).mkpath(s("out"))); // a folder still fits in the inode table
            } else if (verb == s("env-nodisplay")) {
                env.remove(s("DISPLAY"));
                env.remove(s("WAYLAND_DISPLAY"));
                env.remove(s("QT_QPA_PLATFORM"));
            } else if (verb == s("stdout")) {
                p.setStandardOutputFile(arg);
            } else if (verb == s("shell")) {
                shell = true;
            } else {
                QFAIL(qPrintable(s("unknown setup step ") + step));
            }
        }
        QStringList args;
        for (QString a : row.args) args << a.replace(s("@T@"), T);
        env.insert(s("BIN"), s(MHLA_BINARY));
        env.insert(s("T"), T);
        p.setProcessEnvironment(env);
        p.setWorkingDirectory(T);
        QElapsedTimer clock;
        clock.start();
        if (shell) p.start(s("/bin/bash"), {s("-c"), args.join(QLatin1Char(' '))});
        else p.start(s(MHLA_BINARY), args);
        QVERIFY2(p.waitForStarted(), "cannot start the binary");
        const bool finished = p.waitForFinished(row.timeoutMs);
        const qint64 ms = clock.elapsed();
        if (!finished) {
            p.kill();
            p.waitForFinished(5000);
            QFAIL(qPrintable(QStringLiteral("no exit within %1 ms (hangs?)").arg(row.timeoutMs)));
        }
        const QString err = QString::fromUtf8(p.readAllStandardError());
        const QString out = QString::fromUtf8(p.readAllStandardOutput());
        if (err.contains(s("this build has no GUI layer")) && args.value(0) == s("figures"))
            QSKIP("figures needs the GUI build (MHLA_BUILD_GUI=ON)");
        const bool crashed = p.exitStatus() != QProcess::NormalExit;
        const int code = p.exitCode();
        const QString got = crashed ? s("a crash (signal)") : QString::number(code);
        const QByteArray ctx = (s("exit ") + got + s(" after ") + QString::number(ms) +
                                s(" ms; stderr: ") + err.left(1500))
                                   .toUtf8();
        if (row.codes == s("nonzero")) {
            QVERIFY2(!crashed && code != 0, ctx.constData());
        } else if (row.codes == s("nosignal")) {
            QVERIFY2(!crashed && code != 141 && code < 128,
                     ctx.constData()); // 141: killed by SIGPIPE (bash)
        } else {
            QVERIFY2(!crashed && row.codes.split(QLatin1Char('|')).contains(QString::number(code)),
                     ctx.constData());
        }
        for (const QString& w : row.contains) {
            if (w.startsWith(s("out:")))
                QVERIFY2(out.contains(w.mid(4)),
                         qPrintable(s("stdout lacks \"") + w.mid(4) + s("\"")));
            else
                QVERIFY2(err.contains(w),
                         qPrintable(s("stderr lacks \"") + w + s("\"; ") + QString::fromUtf8(ctx)));
        }
        for (const QString& w : row.notContains) {
            if (w.startsWith(s("out:")))
                QVERIFY2(!out.contains(w.mid(4)),
                         qPrintable(s("stdout has \"") + w.mid(4) + s("\"")));
            else
                QVERIFY2(!err.contains(w),
                         qPrintable(s("stderr has \"") + w + s("\"; ") + QString::fromUtf8(ctx)));
        }
        for (const QString& check : row.checks) {
            const QString verb = check.section(QLatin1Char(':'), 0, 0);
            const QString arg = check.section(QLatin1Char(':'), 1);
            if (verb == s("same")) {
                QFile f(QDir(T).filePath(arg.section(QLatin1Char('='), 0, 0)));
                QVERIFY(f.open(QIODevice::ReadOnly));
                QCOMPARE(QString::fromUtf8(f.readAll()), arg.section(QLatin1Char('='), 1));
            } else if (verb == s("absent")) {
                struct stat st {};
                QVERIFY2(::lstat(QFile::encodeName(QDir(T).filePath(arg)).constData(), &st) != 0,
                         qPrintable(arg + s(" was created")));
            } else if (verb == s("complete")) {
                const QString dir = QDir(T).filePath(arg);
                for (const QString& name :
                     QDir(dir).entryList(QDir::Files | QDir::Hidden | QDir::System)) {
                    const QString path = QDir(dir).filePath(name);
                    QVERIFY2(!name.startsWith(QLatin1Char('.')) && !name.contains(s("tmp")),
                             qPrintable(s("temporary file left: ") + name));
                    QFile f(path);
                    QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(path));
                    const QByteArray data = f.readAll();
                    QVERIFY2(!data.isEmpty(), qPrintable(s("empty file: ") + name));
                    if (name.endsWith(s(".json"))) {
                        QJsonParseError pe{};
                        QJsonDocument::fromJson(data, &pe);
                        QVERIFY2(pe.error == QJsonParseError::NoError,
                                 qPrintable(s("truncated JSON: ") + name));
                    } else if (name.endsWith(s(".csv"))) {
                        QVERIFY2(data.endsWith('\n'), qPrintable(s("truncated CSV: ") + name));
                    } else if (name.endsWith(s(".svg"))) {
                        QVERIFY2(data.trimmed().endsWith("</svg>"),
                                 qPrintable(s("truncated SVG: ") + name));
                    }
                }
                if (args.join(QLatin1Char(' ')).contains(s("head -3")))
                    QVERIFY2(QFile::exists(QDir(dir).filePath(s("result.json"))),
                             "result.json missing");
            } else if (verb == s("only")) {
                QStringList want = arg.split(QLatin1Char(','));
                const QStringList have = rawEntries(T);
                // The run may refuse the name (then nothing is written) or write exactly there.
                for (const QString& h : have)
                    QVERIFY2(want.contains(h), qPrintable(s("unexpected entry written: ") + h));
            } else if (verb == s("clean")) {
                QDirIterator it(QDir(T).filePath(arg), QDir::Files | QDir::Hidden,
                                QDirIterator::Subdirectories);
                int files = 0;
                while (it.hasNext()) {
                    QFile f(it.next());
                    QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(f.fileName()));
                    QVERIFY2(!f.readAll().contains("ETA "),
                             qPrintable(s("a progress line in ") + f.fileName()));
                    ++files;
                }
                QVERIFY2(files > 0, qPrintable(s("no files under ") + arg));
            } else if (verb == s("within")) {
                const long long limit = arg.toLongLong() * kSlowdown;
                QVERIFY2(ms < limit,
                         qPrintable(QStringLiteral("took %1 ms, limit %2 ms").arg(ms).arg(limit)));
            } else {
                QFAIL(qPrintable(s("unknown check ") + check));
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestCliBadInput)
#include "tst_cli_badinput.moc"
