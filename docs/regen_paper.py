#!/usr/bin/env python3
"""The numbers docs/paper.md states, regenerated from the build (standard library only).

    python3 docs/regen_paper.py --binary build/app/mhla-lab --write
        reruns every file of resources/paper/ with `mhla-lab figures`, then rewrites the block
        of docs/paper.md between the "generated: claims" markers, docs/paper-numbers.json (every
        quoted number, machine-readable) and the thumbnails docs/figures/<file>.png.

    python3 docs/regen_paper.py --binary build/app/mhla-lab --check [FILE.json ...]
        (what ctest runs on the small files) fails when docs/paper.md's block is not what
        docs/paper-numbers.json gives, or when a stated number of a rerun file leaves its seed
        band (the min..max over the seeds of this build at that grid point), or when a stated
        verdict changes.

Every number comes from DIR/summary.csv (one row per grid point and metric) or DIR/verdict.json,
never from prose. What each file quotes is QUOTES below; what each claims is the file's own
"verdicts" block.
"""
import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

# Relative errors (dimensionless, 1 = as large as the reference) below ROUNDING_LEVEL are the
# rounding of an exact fit: their digits are not a property of the build but of the CPU.
ROUNDING_LEVEL_METRICS = {"distance_p_rel", "distance_exact_rel", "ood_rel_mse"}
ROUNDING_LEVEL = 1e-12

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAPER = os.path.join(ROOT, "resources", "paper")
DOC = os.path.join(ROOT, "docs", "paper.md")
NUMBERS = os.path.join(ROOT, "docs", "paper-numbers.json")
README = os.path.join(ROOT, "README.md")
DEMO_BEGIN = "<!-- BEGIN generated: demo (docs/regen_paper.py --write; do not edit by hand) -->"
DEMO_END = "<!-- END generated: demo -->"
# The README's demo: the default experiment at p = 0 and p = 1, one field per row. The kind says
# how --check compares a fresh run with the stated value: "exact" (booleans, counts), "rel"
# (a number to 1e-9 relative), "roundoff" (zero up to round-off: below 1e-12, whatever its bits;
# it differs between CPUs), "witness" (depends on which null vector the eigensolver returns: in
# (0, 1]).
DEMO = [
    ("`certified`, `null_dim`", [("certified", "exact"), ("null_dim", "exact")]),
    ("`lambda_min` / `lambda_max`", [("lambda_min", "rel_or_roundoff"), ("lambda_max", "rel")]),
    ("`train_mse`", [("train_mse", "roundoff")]),
    ("`distance_p_rel`, `ood_rel_mse`", [("distance_p_rel", "roundoff"), ("ood_rel_mse", "roundoff")]),
    ("`null_witness.train_mse`, `.ood_rel_mse`", [("null_witness.train_mse", "roundoff"),
                                                  ("null_witness.ood_rel_mse", "witness")]),
]
BEGIN = "<!-- BEGIN generated: claims (docs/regen_paper.py --write; do not edit by hand) -->"
END = "<!-- END generated: claims -->"

# Per file: the claim, then the quoted numbers as (label, metric, grid point, statistic). A grid
# point is {swept key: value}; the statistic is a summary.csv column (median, mean, min, max).
QUOTES = {
    "exact_recovery.json": ("(i) exact recovery of random teachers, d = 2…8 × H* ∈ {1, 2, 4}", [
        ("median distance_p_rel at d = 2, H* = 1", "distance_p_rel", {"task.d": 2, "task.teacher_heads": 1}, "median"),
        ("at d = 8, H* = 4", "distance_p_rel", {"task.d": 8, "task.teacher_heads": 4}, "median"),
        ("median ood_rel_mse at d = 8, H* = 4", "ood_rel_mse", {"task.d": 8, "task.teacher_heads": 4}, "median"),
    ]),
    "lambda_vs_p.json": ("(ii) λ_min against p (associative memory, m = 2, Haar keys)", [
        ("median λ_min at p = 0", "lambda_min", {"task.orthogonal_prob": 0}, "median"),
        ("p = 0.5", "lambda_min", {"task.orthogonal_prob": 0.5}, "median"),
        ("p = 0.9", "lambda_min", {"task.orthogonal_prob": 0.9}, "median"),
        ("p = 0.95", "lambda_min", {"task.orthogonal_prob": 0.95}, "median"),
        ("p = 1", "lambda_min", {"task.orthogonal_prob": 1}, "median"),
        ("null_dim at p = 1", "null_dim", {"task.orthogonal_prob": 1}, "median"),
    ]),
    "distance_vs_lambda_adam.json": ("(iii) distance to the teacher against λ_min, Adam, 4 heads, the authors' unsigned-QR keys", [
        ("median distance_p at p = 0.95", "distance_p", {"task.orthogonal_prob": 0.95}, "median"),
        ("0.97", "distance_p", {"task.orthogonal_prob": 0.97}, "median"),
        ("0.99", "distance_p", {"task.orthogonal_prob": 0.99}, "median"),
        ("1", "distance_p", {"task.orthogonal_prob": 1}, "median"),
        ("median λ_min at p = 0.95", "lambda_min", {"task.orthogonal_prob": 0.95}, "median"),
    ]),
    "distance_vs_lambda_adam_haar.json": ("(iii), the finding beside it: the same with Haar keys", [
        ("median distance_p at p = 0.95", "distance_p", {"task.orthogonal_prob": 0.95}, "median"),
        ("1", "distance_p", {"task.orthogonal_prob": 1}, "median"),
        ("median exact.distance_p at p = 1", "exact.distance_p", {"task.orthogonal_prob": 1}, "median"),
    ]),
    "heads_sgd_distance.json": ("(iii) distance against heads, SGD (random teacher, d = 3, H* = 4)", [
        ("median distance_p at H = 1", "distance_p", {"solver.heads": 1}, "median"),
        ("H = 2", "distance_p", {"solver.heads": 2}, "median"),
        ("H = 4", "distance_p", {"solver.heads": 4}, "median"),
        ("H = 8", "distance_p", {"solver.heads": 8}, "median"),
        ("median val_mse at H = 8", "val_mse", {"solver.heads": 8}, "median"),
    ]),
    "heads_layers_softmax.json": ("(iv)–(vi) heads vs layers vs softmax, held-out val_mse", [
        ("MHLA, H = 1", "val_mse", {"solver.kind": "mhla", "solver.heads": 1}, "median"),
        ("MHLA, H = 9 = d²", "val_mse", {"solver.kind": "mhla", "solver.heads": 9}, "median"),
        ("2-layer, H = 1", "val_mse", {"solver.kind": "multilayer", "solver.heads": 1}, "median"),
        ("2-layer, H = 9", "val_mse", {"solver.kind": "multilayer", "solver.heads": 9}, "median"),
        ("softmax, H = 3", "val_mse", {"solver.kind": "softmax", "solver.heads": 3}, "median"),
        ("the exact solver (every run)", "exact.val_mse", {"solver.kind": "mhla", "solver.heads": 1}, "median"),
    ]),
    "heads_layers_softmax_causal.json": ("(iv)–(vi) the same in Sec 4.1's causal setup", [
        ("MHLA, H = 1", "val_mse", {"solver.kind": "mhla", "solver.heads": 1}, "median"),
        ("MHLA, H = 3", "val_mse", {"solver.kind": "mhla", "solver.heads": 3}, "median"),
        ("2-layer, H = 3", "val_mse", {"solver.kind": "multilayer", "solver.heads": 3}, "median"),
        ("softmax, H = 3", "val_mse", {"solver.kind": "softmax", "solver.heads": 3}, "median"),
    ]),
    "automaton_encodings.json": ("(vii) automaton encodings (s = 3, k = 2)", [
        ("certified fraction, onehot", "certified", {"task.embedding": "onehot"}, "mean"),
        ("orthogonal", "certified", {"task.embedding": "orthogonal"}, "mean"),
        ("gaussian", "certified", {"task.embedding": "gaussian"}, "mean"),
        ("median ood_rel_mse, onehot", "ood_rel_mse", {"task.embedding": "onehot"}, "median"),
        ("gaussian", "ood_rel_mse", {"task.embedding": "gaussian"}, "median"),
        ("median step accuracy on 48-letter words, gaussian", "execution.step_accuracy", {"task.embedding": "gaussian"}, "median"),
        ("the teacher's", "execution.teacher_step_accuracy", {"task.embedding": "gaussian"}, "median"),
    ]),
    "samples_for_certificate.json": ("samples needed for the certificate (associative memory, p = 0.5, D = 40)", [
        ("certified fraction at N = 20", "certified", {"task.samples": 20}, "mean"),
        ("N = 40", "certified", {"task.samples": 40}, "mean"),
        ("N = 80", "certified", {"task.samples": 80}, "mean"),
        ("median λ_min at N = 80", "lambda_min", {"task.samples": 80}, "median"),
        ("N = 2560", "lambda_min", {"task.samples": 2560}, "median"),
    ]),
    "orthogonal_sampler.json": ("orthogonal sampler (MATH.md §7): Haar vs the authors' unsigned QR", [
        ("null_dim at p = 1, Haar", "null_dim", {"task.orthogonal_sampler": "haar", "task.orthogonal_prob": 1}, "median"),
        ("unsigned QR", "null_dim", {"task.orthogonal_sampler": "qr_unsigned", "task.orthogonal_prob": 1}, "median"),
        ("distance_p_rel at p = 1, Haar", "distance_p_rel", {"task.orthogonal_sampler": "haar", "task.orthogonal_prob": 1}, "median"),
        ("unsigned QR", "distance_p_rel", {"task.orthogonal_sampler": "qr_unsigned", "task.orthogonal_prob": 1}, "median"),
    ]),
}


def fmt(v):
    if v is None:
        return "n/a"
    if v == 0:
        return "0"
    s = f"{v:.3g}"
    if "e" in s:
        m, e = s.split("e")
        s = f"{m}e{int(e)}"
    return s.replace("-", "−")


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def same(a, b):
    if isinstance(b, str) or isinstance(a, str):
        return str(a) == str(b)
    return abs(float(a) - float(b)) <= 1e-9 * max(1.0, abs(float(a)), abs(float(b)))


def summary_row(rows, metric, point):
    for r in rows:
        if r["metric"] != metric:
            continue
        if all(k in r and same(r[k] if not _num(r[k]) else float(r[k]), v) for k, v in point.items()):
            return r
    return None


def _num(s):
    try:
        float(s)
        return True
    except ValueError:
        return False


def run_file(binary, name, out, jobs):
    cfg = os.path.join(PAPER, name)
    t0 = time.monotonic()
    p = subprocess.run([binary, "figures", "--config", cfg, "--out", out, "--jobs", str(jobs)],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       env=dict(os.environ, QT_QPA_PLATFORM="offscreen"))
    wall = time.monotonic() - t0
    if p.returncode != 0:
        sys.exit(f"regen_paper: `mhla-lab figures --config {cfg}` failed ({p.returncode}):\n{p.stderr}")
    rows = read_csv(os.path.join(out, "summary.csv"))
    verdicts = []
    vpath = os.path.join(out, "verdict.json")
    if os.path.exists(vpath):
        with open(vpath, encoding="utf-8") as f:
            verdicts = json.load(f)
    runs = len(read_csv(os.path.join(out, "runs.csv")))
    quotes = []
    for label, metric, point, stat in QUOTES[name][1]:
        r = summary_row(rows, metric, point)
        if r is None:
            sys.exit(f"regen_paper: {name}: no summary.csv row for {metric} at {point}")
        quotes.append({"label": label, "metric": metric, "at": point, "stat": stat,
                       "value": float(r[stat]), "band": [float(r["min"]), float(r["max"])],
                       "runs": int(r["runs"])})
    return {"file": name, "claim": QUOTES[name][0], "quotes": quotes, "runs": runs,
            "wall_s": round(wall, 1),
            "verdicts": [{"line": v["claim"], "reproduces": v["reproduces"],
                          "statistic": v["statistic"], "value": v["value"], "spread": v["spread"],
                          "expected": v["expected"], "runs": v["runs"]} for v in verdicts]}


def verdict_text(v):
    spread = ""
    if v["spread"][0] is not None:
        spread = f", spread {fmt(v['spread'][0])} … {fmt(v['spread'][1])}"
    return (("**reproduces**" if v["reproduces"] else "**does not reproduce**") +
            f": {v['line']} ({v['statistic']} = {fmt(v['value'])}{spread}; expected {v['expected']})")


def block(entries, machine):
    lines = [BEGIN, "",
             f"Regenerated by `python3 docs/regen_paper.py --write` from the build, {machine}; "
             "`ctest -R docs_paper_numbers` reruns the small files and fails when a stated number "
             "leaves its seed band (min..max over the seeds at that grid point).", "",
             "| Claim | File | Numbers (this build) | Verdict (the file's own `verdicts`) | Runs | Wall, 2 cores |",
             "|---|---|---|---|---|---|"]
    for e in entries:
        nums = "; ".join(f"{q['label']} {fmt(q['value'])}" for q in e["quotes"])
        verd = "<br>".join(verdict_text(v) for v in e["verdicts"]) or "—"
        lines.append(f"| {e['claim']} | `{e['file']}` | {nums} | {verd} | {e['runs']} | {e['wall_s']} s |")
    lines += ["", END]
    return "\n".join(lines)


def current_block(text, begin=BEGIN, end=END, where=DOC):
    i, j = text.find(begin), text.find(end)
    if i < 0 or j < 0:
        sys.exit(f"regen_paper: {where} has no generated block ({begin!r} … {end!r})")
    return text[i:j + len(end)]


def field(result, path):
    v = result
    for part in path.split("."):
        v = v.get(part) if isinstance(v, dict) else None
    return v


def run_demo(binary):
    out = {}
    for p in (0, 1):
        r = subprocess.run([binary, "solve", "--set", f"task.orthogonal_prob={p}"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            sys.exit(f"regen_paper: the demo (orthogonal_prob = {p}) failed:\n{r.stderr}")
        res = json.loads(r.stdout)
        out[str(p)] = {f: field(res, f) for _, fs in DEMO for f, _ in fs}
    return out


def demo_cell(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "—"
    if isinstance(v, int):
        return str(v)
    if v != 0 and abs(v) < 1e-3:  # round-off: its order of magnitude is what it says
        m, e = f"{v:.0e}".split("e")
        return f"{m}e{int(e)}".replace("-", "−")
    return fmt(v)


def demo_block(demo):
    lines = [DEMO_BEGIN, "", "| | `orthogonal_prob = 0` | `orthogonal_prob = 1` |", "|---|---|---|"]
    for label, fs in DEMO:
        cells = []
        for p in ("0", "1"):
            vals = [demo[p][f] for f, _ in fs]
            if all(v is None for v in vals):
                cells.append("—")
            else:
                sep = " / " if "/" in label else ", "
                cells.append(sep.join(demo_cell(v) for v in vals))
        lines.append(f"| {label} | {cells[0]} | {cells[1]} |")
    lines += ["", DEMO_END]
    return "\n".join(lines)


def demo_agrees(stated, fresh, kind):
    if stated is None or fresh is None:
        return stated is None and fresh is None
    if kind == "exact":
        return stated == fresh
    if kind == "roundoff":
        return abs(stated) < 1e-12 and abs(fresh) < 1e-12
    if kind == "witness":
        return 0 < fresh <= 1 and 0 < stated <= 1
    rel = abs(fresh - stated) <= 1e-9 * max(abs(stated), abs(fresh))
    return rel or (kind == "rel_or_roundoff" and abs(stated) < 1e-12 and abs(fresh) < 1e-12)


def machine_text():
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    load = os.getloadavg()[0]
    return (f"{cpu}, {os.cpu_count()} cores, {time.strftime('%Y-%m-%d', time.gmtime())}, load "
            f"average {load:.1f} when it started (wall times are upper bounds when it is above "
            f"the core count)")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "app", "mhla-lab"))
    ap.add_argument("--jobs", type=int, default=2)
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--write", action="store_true")
    g.add_argument("--check", nargs="*", metavar="FILE.json")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="mhla-regen-")
    try:
        if a.write:
            entries = []
            for name in QUOTES:
                out = os.path.join(work, name[:-5])
                entries.append(run_file(a.binary, name, out, a.jobs))
                print(f"{name}: {entries[-1]['runs']} runs, {entries[-1]['wall_s']} s", file=sys.stderr)
                pngs = sorted(f for f in os.listdir(out) if f.endswith(".png"))
                with open(os.path.join(PAPER, name), encoding="utf-8") as f:
                    first = json.load(f).get("figures", [{}])[0].get("name")
                thumb = f"{first}.png" if first and f"{first}.png" in pngs else (pngs[0] if pngs else None)
                if thumb:  # the full-size figure scaled to 480 px wide (ImageMagick), as drawn
                    dst = os.path.join(ROOT, "docs", "figures", name[:-5] + ".png")
                    if shutil.which("convert"):
                        subprocess.run(["convert", os.path.join(out, thumb), "-resize", "480x",
                                        "-strip", dst], check=True)
                    else:
                        shutil.copyfile(os.path.join(out, thumb), dst)
            data = {"machine": machine_text(), "entries": entries, "demo": run_demo(a.binary)}
            with open(README, encoding="utf-8") as f:
                readme = f.read()
            readme = readme.replace(current_block(readme, DEMO_BEGIN, DEMO_END, README),
                                    demo_block(data["demo"]))
            with open(README, "w", encoding="utf-8") as f:
                f.write(readme)
            with open(NUMBERS, "w", encoding="utf-8") as f:
                json.dump(data, f, indent=1, ensure_ascii=False)
                f.write("\n")
            with open(DOC, encoding="utf-8") as f:
                text = f.read()
            text = text.replace(current_block(text), block(entries, data["machine"]))
            with open(DOC, "w", encoding="utf-8") as f:
                f.write(text)
            return 0
        with open(NUMBERS, encoding="utf-8") as f:
            data = json.load(f)
        with open(DOC, encoding="utf-8") as f:
            text = f.read()
        failures = []
        if current_block(text) != block(data["entries"], data["machine"]):
            failures.append("docs/paper.md's generated block differs from docs/paper-numbers.json "
                            "(edited by hand?): rerun docs/regen_paper.py --write")
        with open(README, encoding="utf-8") as f:
            readme = f.read()
        if current_block(readme, DEMO_BEGIN, DEMO_END, README) != demo_block(data["demo"]):
            failures.append("README.md's demo table differs from docs/paper-numbers.json (edited "
                            "by hand?): rerun docs/regen_paper.py --write")
        fresh_demo = run_demo(a.binary)
        for p in ("0", "1"):
            for _, fs in DEMO:
                for f_, kind in fs:
                    ok = demo_agrees(data["demo"][p][f_], fresh_demo[p][f_], kind)
                    print(f"demo p = {p}: {f_}: stated {data['demo'][p][f_]}, this build "
                          f"{fresh_demo[p][f_]} ({kind}): {'ok' if ok else 'DIFFERS'}")
                    if not ok:
                        failures.append(f"README demo, p = {p}: {f_} stated {data['demo'][p][f_]}, "
                                        f"this build {fresh_demo[p][f_]}")
        stated = {e["file"]: e for e in data["entries"]}
        for name in a.check or []:
            if name not in stated:
                failures.append(f"{name}: not in docs/paper-numbers.json")
                continue
            fresh = run_file(a.binary, name, os.path.join(work, name[:-5]), a.jobs)
            for old, new in zip(stated[name]["quotes"], fresh["quotes"]):
                lo, hi = new["band"]
                slack = 1e-12 * max(abs(lo), abs(hi), 1e-300)
                ok = lo - slack <= old["value"] <= hi + slack
                # A relative error at rounding level (an exact fit's 1e-15) has digits that
                # depend on the CPU's SIMD path (AVX2 and AVX-512 sum in other orders): stated and
                # rerun agree when both are at rounding level, whatever their digits.
                rounding = (old["metric"] in ROUNDING_LEVEL_METRICS
                            and max(abs(old["value"]), abs(lo), abs(hi)) < ROUNDING_LEVEL)
                verdict = "ok" if ok else ("ok (both at rounding level, < %g)" % ROUNDING_LEVEL
                                           if rounding else "LEFT ITS BAND")
                ok = ok or rounding
                print(f"{name}: {old['label']} ({old['metric']} {old['stat']} at {old['at']}): "
                      f"stated {old['value']:.6g}, this build {new['value']:.6g}, seed band "
                      f"[{lo:.6g}, {hi:.6g}] over {new['runs']} runs: {verdict}")
                if not ok:
                    failures.append(f"{name}: {old['label']}: stated {old['value']:.6g} is outside "
                                    f"this build's seed band [{lo:.6g}, {hi:.6g}]")
            for old, new in zip(stated[name]["verdicts"], fresh["verdicts"]):
                print(f"{name}: verdict {'reproduces' if new['reproduces'] else 'does not reproduce'}: {new['line']}")
                if old["reproduces"] != new["reproduces"]:
                    failures.append(f"{name}: the verdict \"{old['line']}\" changed to "
                                    f"{'reproduces' if new['reproduces'] else 'does not reproduce'}")
        for f_ in failures:
            print("FAIL: " + f_, file=sys.stderr)
        return 1 if failures else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
