"""Tests of the Python module mhla_lab (app/python/), run by ctest with the interpreter the
module was built for (Debian's /usr/bin/python3 and NumPy). PYTHONPATH holds the module and
MHLA_BINARY names the mhla-lab binary of the same build (tests/python/CMakeLists.txt)."""
import contextlib
import csv
import json
import math
import os
import signal
import subprocess
import tempfile
import threading
import time
import unittest
import warnings
import zipfile

import numpy as np

import mhla_lab

BINARY = os.environ["MHLA_BINARY"]
# Cancelling must land within 100 ms (issue 24); the assertion is a generous bound so that a
# loaded machine does not fail it, and the measured worst case is printed.
CANCEL_TARGET_MS = 100.0
CANCEL_BOUND_MS = 1000.0


def numpy_psi(Z):
    """psi of MATH.md §2 straight from its definition: Z is N x n x d (tokens as rows, the last
    one the query); psi[s, pair(a,b)*d + c] = S_ab z_q,c with S = sum_t z_t z_t^T, a <= b."""
    N, n, d = Z.shape
    S = np.einsum("sta,stb->sab", Z, Z)
    zq = Z[:, -1, :]
    rows, cols = np.triu_indices(d)  # row-major order of the pairs a <= b
    return (S[:, rows, cols][:, :, None] * zq[:, None, :]).reshape(N, len(rows) * d)


def numpy_psi_bound(Z):
    """The same sums of absolute values: an entry of psi computed in any order of its n terms
    is exact to a small multiple of n * eps times this."""
    return numpy_psi(np.abs(Z))


def numpy_fold(V, Q):
    """P of MATH.md §2 from heads V (H x d_out x d) and Q (H x d x d)."""
    H, d_out, d = V.shape
    pairs = [(a, b) for a in range(d) for b in range(a, d)]
    P = np.zeros((d_out, len(pairs) * d))
    for p, (a, b) in enumerate(pairs):
        for c in range(d):
            if a == b:
                P[:, p * d + c] = np.einsum("hi,h->i", V[:, :, a], Q[:, a, c])
            else:
                P[:, p * d + c] = np.einsum("hi,h->i", V[:, :, a], Q[:, b, c]) + np.einsum(
                    "hi,h->i", V[:, :, b], Q[:, a, c]
                )
    return P


def numpy_mhla(V, Q, Z):
    """f(Z) = sum_h V_h S(Z) Q_h z_q of MATH.md §1 for every prompt (N x d_out)."""
    S = np.einsum("sta,stb->sab", Z, Z)
    zq = Z[:, -1, :]
    return np.einsum("hia,sab,hbc,sc->si", V, S, Q, zq)


def numpy_mhla_bound(V, Q, Z):
    A = np.abs
    return np.einsum("hia,sab,hbc,sc->si", A(V), np.einsum("sta,stb->sab", A(Z), A(Z)), A(Q),
                     A(Z[:, -1, :]))


def small_experiment(**task):
    t = {"kind": "random_mhla", "d": 3, "tokens": 5, "d_out": 2, "teacher_heads": 2,
         "samples": 600, "seed": 7}
    t.update(task)
    return {"task": t, "solver": {"kind": "poly"},
            "eval": {"val_samples": 256, "ood_samples": 256, "spectrum": "full"}}


def run_cli(experiment, folder):
    path = os.path.join(folder, "experiment.in.json")
    with open(path, "w") as f:
        json.dump(experiment, f)
    out = os.path.join(folder, "out")
    proc = subprocess.run([BINARY, "solve", "--config", path, "--out", out],
                          capture_output=True, text=True)
    return proc, path, out


class Features(unittest.TestCase):
    def test_psi_against_numpy(self):
        rng = np.random.default_rng(1)
        for N, n, d in [(64, 5, 3), (10, 1, 4), (7, 6, 1), (3, 9, 17), (0, 4, 2)]:
            with self.subTest(N=N, n=n, d=d):
                Z = rng.standard_normal((N, n, d))
                psi = mhla_lab.features(Z)
                self.assertEqual(psi.shape, (N, d * d * (d + 1) // 2))
                self.assertEqual(psi.dtype, np.float64)
                err = np.abs(psi - numpy_psi(Z))
                self.assertTrue(np.all(err <= 1e-12 * numpy_psi_bound(Z)), err.max(initial=0))

    def test_threads_and_layouts_give_the_same_numbers(self):
        Z = np.random.default_rng(2).standard_normal((1000, 4, 3))
        one = mhla_lab.features(Z, threads=1)
        self.assertTrue(np.array_equal(one, mhla_lab.features(Z, threads=3)))
        # A Fortran-ordered or strided array is the same data: the same psi, bit for bit.
        self.assertTrue(np.array_equal(one, mhla_lab.features(np.asfortranarray(Z))))
        Zs = np.zeros((1000, 4, 6))
        Zs[:, :, ::2] = Z
        self.assertTrue(np.array_equal(one, mhla_lab.features(Zs[:, :, ::2])))

    def test_float32_is_converted_once(self):
        Z32 = np.random.default_rng(3).standard_normal((50, 4, 3)).astype(np.float32)
        self.assertTrue(np.array_equal(mhla_lab.features(Z32),
                                       mhla_lab.features(Z32.astype(np.float64))))

    def test_bad_prompts(self):
        cases = {
            "2-d": (np.zeros((4, 3)), "shape (4, 3)"),
            "no tokens": (np.zeros((4, 0, 3)), "shape (4, 0, 3)"),
            "d = 0": (np.zeros((4, 3, 0)), "shape (4, 3, 0)"),
            "int64": (np.zeros((4, 3, 2), dtype=np.int64), "dtype int64"),
            "complex": (np.zeros((4, 3, 2), dtype=complex), "dtype complex128"),
        }
        for name, (Z, what) in cases.items():
            with self.subTest(name):
                with self.assertRaises(ValueError) as cm:
                    mhla_lab.features(Z)
                self.assertIn("prompts", str(cm.exception))
                self.assertIn(what, str(cm.exception))
                self.assertIn("allowed", str(cm.exception))


class Predict(unittest.TestCase):
    def test_teacher_coefficients_reproduce_the_teacher(self):
        rng = np.random.default_rng(4)
        for H, d_out, d, n in [(1, 1, 2, 3), (3, 2, 4, 6), (5, 3, 5, 2)]:
            with self.subTest(H=H, d_out=d_out, d=d):
                V = rng.standard_normal((H, d_out, d))
                Q = rng.standard_normal((H, d, d))
                Z = rng.standard_normal((200, n, d))
                y = mhla_lab.predict(numpy_fold(V, Q), Z)
                self.assertEqual(y.shape, (200, d_out))
                # P* psi and the heads' own sum differ only by rounding (MATH.md §2 identity).
                err = np.abs(y - numpy_mhla(V, Q, Z))
                self.assertTrue(np.all(err <= 1e-12 * d * d * numpy_mhla_bound(V, Q, Z)),
                                err.max())

    def test_predict_is_p_times_features(self):
        rng = np.random.default_rng(5)
        Z = rng.standard_normal((100, 4, 3))
        P = rng.standard_normal((2, 18))
        ref = mhla_lab.features(Z) @ P.T
        bound = np.abs(mhla_lab.features(Z)) @ np.abs(P.T)
        self.assertTrue(np.all(np.abs(mhla_lab.predict(P, Z) - ref) <= 1e-13 * bound))

    def test_solved_teacher(self):
        r = mhla_lab.solve(small_experiment())
        Z = np.random.default_rng(6).standard_normal((300, 5, 3))
        f = numpy_mhla(r["teacher_heads_V"], r["teacher_heads_Q"], Z)
        scale = np.abs(f).max()
        # The teacher's canonical heads (SVD of unfold(P*)) fold back to P* up to rounding.
        self.assertLess(np.abs(mhla_lab.predict(r["teacher_P"], Z) - f).max(), 1e-10 * scale)
        # Certified: the fit computes the teacher's function off the training distribution.
        self.assertTrue(r["certified"])
        self.assertLess(np.abs(mhla_lab.predict(r["P"], Z) - f).max(), 1e-8 * scale)

    def test_bad_coefficients(self):
        Z = np.zeros((4, 3, 2))
        for name, P in {"wrong D": np.zeros((1, 7)), "1-d": np.zeros(6),
                        "no outputs": np.zeros((0, 6))}.items():
            with self.subTest(name):
                with self.assertRaises(ValueError) as cm:
                    mhla_lab.predict(P, Z)
                self.assertIn("P: shape", str(cm.exception))
                self.assertIn("D = d^2(d+1)/2 = 6", str(cm.exception))


class Solve(unittest.TestCase):
    def compare_with_cli(self, experiment):
        with tempfile.TemporaryDirectory() as folder:
            proc, _, out = run_cli(experiment, folder)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            with open(os.path.join(out, "result.json")) as f:
                cli = json.load(f)
            with open(os.path.join(out, "heads.csv")) as f:
                heads = list(csv.DictReader(f))
            with open(os.path.join(out, "spectrum.csv")) as f:
                spectrum = [float(row["eigenvalue"]) for row in csv.DictReader(f)]
        r = mhla_lab.solve(experiment)

        def plain(v):
            """The dict's value in result.json's terms (arrays as lists, NaN as null)."""
            if isinstance(v, np.ndarray):
                if v.dtype.names:
                    return [plain(dict(zip(v.dtype.names, rec.tolist()))) if
                            v.dtype.names != ("samples", "lambda_min") else plain(list(rec.tolist()))
                            for rec in v]
                return plain(v.tolist())
            if isinstance(v, dict):
                return {k: plain(x) for k, x in v.items()}
            if isinstance(v, list):
                return [plain(x) for x in v]
            if isinstance(v, float) and math.isnan(v):
                return None
            return v

        arrays_only = {"P", "teacher_P", "heads_V", "heads_Q", "teacher_heads_V",
                       "teacher_heads_Q", "spectrum"}
        self.assertEqual(set(r) - arrays_only, set(cli))
        for key in cli:
            if key == "timings_ms":
                self.assertEqual(set(r[key]), set(cli[key]))
                continue
            with self.subTest(key=key):
                self.assertEqual(plain(r[key]), cli[key])  # every number bit for bit
        self.assertEqual(r["lambda_min"], cli["lambda_min"])
        self.assertEqual(r["spectrum"].tolist(), spectrum)
        for row in heads:
            M = r[("heads_" if row["model"] == "learned" else "teacher_heads_") + row["matrix"]]
            self.assertEqual(M[int(row["head"]), int(row["row"]), int(row["col"])],
                             float(row["value"]))
        return r

    def test_poly_matches_cli(self):
        r = self.compare_with_cli(small_experiment())
        self.assertEqual(r["P"].shape, (2, 18))
        self.assertEqual(r["teacher_P"].shape, (2, 18))
        # P itself is not in the CLI's files: the same run on other thread counts gives the
        # same P bit for bit, and P is the fold of its heads (all kept) up to rounding.
        for t in (1, 3):
            self.assertTrue(np.array_equal(mhla_lab.solve(small_experiment(), threads=t)["P"],
                                           r["P"]))
        refold = numpy_fold(r["heads_V"], r["heads_Q"])
        self.assertLess(np.abs(refold - r["P"]).max(), 1e-12 * np.abs(r["P"]).max())

    def test_not_certified_matches_cli(self):
        # Fewer samples than features: the certificate fails, the min-norm fit and the
        # identifiability report are compared too.
        r = self.compare_with_cli(small_experiment(samples=12))
        self.assertFalse(r["certified"])
        self.assertGreater(r["null_dim"], 0)

    def test_trainers_match_cli(self):
        for kind in ("mhla", "multilayer", "softmax"):
            with self.subTest(kind=kind):
                e = small_experiment(samples=256)
                e["solver"] = {"kind": kind, "epochs": 3, "batch": 32, "heads": 2}
                r = self.compare_with_cli(e)
                self.assertEqual(r["history"].dtype.names[:4],
                                 ("epoch", "step", "lr", "train_mse"))
                # The starting point, then one point per epoch (solver.log_every = 1).
                self.assertEqual(r["history"]["epoch"].tolist(), [0, 1, 2, 3])

    def test_cli_warnings_are_python_warnings(self):
        with self.assertWarnsRegex(UserWarning, "task.d is set but not read"):
            mhla_lab.solve({"task": {"kind": "associative_memory", "d": 2, "samples": 200}})

    def test_numpy_scalars(self):
        e = small_experiment(d=np.int64(3), samples=np.int32(600))
        e["solver"]["tolerance"] = np.float32(1e-10).item()
        r = mhla_lab.solve(e)
        self.assertEqual(r["lambda_min"], mhla_lab.solve(small_experiment())["lambda_min"])


class Fit(unittest.TestCase):
    """fit() on arrays in memory: the dataset task without files."""

    def test_recovers_a_planted_p_and_certifies(self):
        # Targets made by a known P on generic prompts (N = 3000 >> D = 18): the data certify,
        # and the minimum-norm fit is that P (to rounding: 1e-9 of its size).
        rng = np.random.default_rng(3)
        Z = rng.standard_normal((3000, 4, 3))
        P = rng.standard_normal((2, 18))
        r = mhla_lab.fit(Z, mhla_lab.predict(P, Z), eval={"lambda_trace": 0})
        self.assertTrue(r["certified"])
        self.assertGreater(r["lambda_min"], 0)
        self.assertLess(np.abs(r["P"] - P).max(), 1e-9 * np.abs(P).max())
        self.assertEqual(r["null_dim"], 0)
        self.assertIsNone(r["teacher_P"])  # no teacher: absent, not zero
        self.assertNotIn("distance_p", r)
        self.assertEqual(r["config"]["task"]["prompts"], "<in memory: (3000, 4, 3)>")

    def test_numpy_teachers_data_through_the_cli_and_fit(self):
        # Issue 24's acceptance test: prompts and targets written by NumPy (not by MHLA Lab) from
        # a random 2-head MHLA teacher of NumPy's own (MATH.md §7 scales). `mhla-lab solve` on
        # the files certifies them, lambda_min agrees with NumPy's eigvalsh of psi^T psi / N to
        # 1e-8 relative, and the fit (its heads from heads.csv folded by NumPy) is the teacher's
        # P to 1e-8 relative; fit(Z, y) on the arrays gives the CLI's numbers bit for bit.
        rng = np.random.default_rng(11)
        d, n, N, H, d_out = 3, 6, 800, 2, 3
        V = rng.standard_normal((H, d_out, d)) / np.sqrt(d)
        Q = rng.standard_normal((H, d, d)) / np.sqrt(d)
        Z = rng.standard_normal((N, n, d)) / np.sqrt(n)
        y = numpy_mhla(V, Q, Z)
        P_true = numpy_fold(V, Q)
        psi = numpy_psi(Z)
        numpy_lambda_min = np.linalg.eigvalsh(psi.T @ psi / N)[0]
        self.assertGreater(numpy_lambda_min, 0)
        with tempfile.TemporaryDirectory() as folder:
            zp, yp = os.path.join(folder, "Z.npy"), os.path.join(folder, "y.npy")
            np.save(zp, Z)
            np.save(yp, y)
            out = os.path.join(folder, "out")
            proc = subprocess.run(
                [BINARY, "solve", "--set", "task.kind=dataset", "--set", "task.prompts=" + zp,
                 "--set", "task.targets=" + yp, "--out", out], capture_output=True, text=True)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            with open(os.path.join(out, "result.json")) as f:
                cli = json.load(f)
            with open(os.path.join(out, "heads.csv")) as f:
                rows = [r for r in csv.DictReader(f) if r["model"] == "learned"]
        self.assertTrue(cli["certified"])
        rel = abs(cli["lambda_min"] - numpy_lambda_min) / numpy_lambda_min
        self.assertLess(rel, 1e-8, (cli["lambda_min"], numpy_lambda_min))
        count = 1 + max(int(r["head"]) for r in rows)
        Vc, Qc = np.zeros((count, d_out, d)), np.zeros((count, d, d))
        for r in rows:
            (Vc if r["matrix"] == "V" else Qc)[int(r["head"]), int(r["row"]),
                                                int(r["col"])] = float(r["value"])
        P_cli = numpy_fold(Vc, Qc)
        self.assertLess(np.linalg.norm(P_cli - P_true) / np.linalg.norm(P_true), 1e-8)
        mem = mhla_lab.fit(Z, y)
        for key in ("lambda_min", "lambda_max", "null_dim", "certified", "train_mse", "rank"):
            self.assertEqual(mem[key], cli[key], key)
        self.assertLess(np.linalg.norm(mem["P"] - P_true) / np.linalg.norm(P_true), 1e-8)

    def test_min_norm_fit_is_numpys_least_squares(self):
        # Issue 24: fit() against NumPy's own least squares on the same arrays. With fewer
        # prompts than features (N = 12 < D = 18) Lambda is singular, nothing certifies, and the
        # fit is the minimum-norm solution of psi P^T = y, which np.linalg.lstsq returns too
        # (SVD of psi, rcond=None); both to 1e-8 of P's size, and the fit reproduces the
        # targets to round-off.
        rng = np.random.default_rng(21)
        Z = rng.standard_normal((12, 4, 3))
        y = rng.standard_normal((12, 2))
        r = mhla_lab.fit(Z, y, eval={"identifiability": "none", "lambda_trace": 0})
        self.assertFalse(r["certified"])
        self.assertEqual(r["null_dim"], 18 - 12)
        psi = numpy_psi(Z)
        P_numpy = np.linalg.lstsq(psi, y, rcond=None)[0].T
        scale = np.abs(P_numpy).max()
        self.assertLess(np.abs(r["P"] - P_numpy).max(), 1e-8 * scale)
        self.assertLess(np.abs(mhla_lab.predict(r["P"], Z) - y).max(), 1e-9 * np.abs(y).max())

    def test_same_bits_as_the_exported_files(self):
        # A synthetic task written by `mhla-lab export-data`, read back with NumPy and fitted
        # in memory, gives the numbers solve() gives on the files, bit for bit.
        with tempfile.TemporaryDirectory() as folder:
            proc = subprocess.run(
                [BINARY, "export-data", "--set", "task.kind=associative_memory", "--set",
                 "task.samples=500", "--out", folder], capture_output=True, text=True)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            Z = np.load(os.path.join(folder, "prompts.npy"))
            Y = np.load(os.path.join(folder, "targets.npy"))
            ev = {"lambda_trace": 0, "spectrum": "full"}
            files = mhla_lab.solve({"task": {"kind": "dataset",
                                             "prompts": os.path.join(folder, "prompts.npy"),
                                             "targets": os.path.join(folder, "targets.npy")},
                                    "eval": ev})
            mem = mhla_lab.fit(Z, Y, eval=ev, threads=1)
            for key in ("lambda_min", "null_dim", "certified", "train_mse", "rank"):
                self.assertEqual(mem[key], files[key], key)
            self.assertTrue(np.array_equal(mem["P"], files["P"]))
            self.assertTrue(np.array_equal(mem["spectrum"], files["spectrum"]))
            # Fortran order reads the same values (converted to C order once).
            again = mhla_lab.fit(np.asfortranarray(Z), Y, eval=ev)
            self.assertTrue(np.array_equal(again["P"], mem["P"]))

    def test_npz_archives_written_by_numpy_read_as_the_npy_files(self):
        # np.savez (stored) and np.savez_compressed (deflated) archives of the exported arrays,
        # named as ARCHIVE.npz:NAME (the held-out set too), give the .npy files' numbers bit for
        # bit, through the CLI as through solve(); a bare archive of several arrays is refused
        # with their names.
        with tempfile.TemporaryDirectory() as folder:
            proc = subprocess.run(
                [BINARY, "export-data", "--set", "task.kind=associative_memory", "--set",
                 "task.samples=400", "--set", "eval.val_samples=50", "--out", folder],
                capture_output=True, text=True)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            names = ("prompts", "targets", "validation_prompts", "validation_targets")
            arrays = {n: np.load(os.path.join(folder, n + ".npy")) for n in names}
            ev = {"lambda_trace": 0, "spectrum": "full"}

            def task(path_of):
                return {"task": {"kind": "dataset", **{n: path_of(n) for n in names}}, "eval": ev}

            files = mhla_lab.solve(task(lambda n: os.path.join(folder, n + ".npy")))
            self.assertIn("val_mse", files)
            for save in (np.savez, np.savez_compressed):
                archive = os.path.join(folder, save.__name__ + ".npz")
                save(archive, **arrays)
                z = mhla_lab.solve(task(lambda n: archive + ":" + n))
                for key in ("lambda_min", "null_dim", "certified", "train_mse", "val_mse", "rank"):
                    self.assertEqual(z[key], files[key], (save.__name__, key))
                self.assertTrue(np.array_equal(z["P"], files["P"]))
                out = os.path.join(folder, "out-" + save.__name__)
                proc = subprocess.run(
                    [BINARY, "solve", "--set", "task.kind=dataset",
                     "--set", "task.prompts=" + archive + ":prompts",
                     "--set", "task.targets=" + archive + ":targets",
                     "--set", "eval.spectrum=full", "--set", "eval.lambda_trace=0", "--out", out],
                    capture_output=True, text=True)
                self.assertEqual(proc.returncode, 0, proc.stderr)
                with open(os.path.join(out, "result.json")) as f:
                    cli = json.load(f)
                self.assertEqual(cli["lambda_min"], files["lambda_min"])
                self.assertEqual(cli["train_mse"], files["train_mse"])
            # Bare archive of four arrays: exit 2, naming them and the syntax.
            proc = subprocess.run(
                [BINARY, "solve", "--set", "task.kind=dataset",
                 "--set", "task.prompts=" + os.path.join(folder, "savez.npz"),
                 "--out", os.path.join(folder, "bad")], capture_output=True, text=True)
            self.assertEqual(proc.returncode, 2, proc.stderr)
            self.assertIn("holds 4 arrays (prompts, targets, validation_prompts, "
                          "validation_targets)", proc.stderr)
            self.assertIn("savez.npz:prompts", proc.stderr)
            # A missing array names what the archive holds.
            with self.assertRaises(mhla_lab.ConfigError) as ctx:
                mhla_lab.solve({"task": {"kind": "dataset",
                                         "prompts": os.path.join(folder, "savez.npz") + ":Z"}})
            self.assertEqual(ctx.exception.key, "task.prompts")
            self.assertIn("has no array 'Z'; it holds: prompts, targets", str(ctx.exception))

    def test_export_data_npz_is_what_numpy_reads(self):
        # `export-data --npz` writes one data.npz that np.load opens: its four arrays are the
        # .npy export's arrays bit for bit, stored (not compressed) as np.savez stores them.
        with tempfile.TemporaryDirectory() as folder:
            keys = ["--set", "task.kind=random_mhla", "--set", "task.d=3", "--set",
                    "task.samples=250", "--set", "eval.val_samples=40"]
            for sub, extra in (("npy", []), ("npz", ["--npz"])):
                proc = subprocess.run([BINARY, "export-data", *keys, "--out",
                                       os.path.join(folder, sub), *extra],
                                      capture_output=True, text=True)
                self.assertEqual(proc.returncode, 0, proc.stderr)
            self.assertEqual(sorted(os.listdir(os.path.join(folder, "npz"))),
                             ["data.npz", "dataset.json"])
            archive = os.path.join(folder, "npz", "data.npz")
            with zipfile.ZipFile(archive) as z:
                self.assertEqual([i.compress_type for i in z.infolist()],
                                 [zipfile.ZIP_STORED] * 4)
            with np.load(archive) as data:
                self.assertEqual(sorted(data.files), ["prompts", "targets", "validation_prompts",
                                                      "validation_targets"])
                for name in data.files:
                    single = np.load(os.path.join(folder, "npy", name + ".npy"))
                    self.assertEqual(data[name].dtype, np.float64)
                    self.assertTrue(np.array_equal(data[name], single), name)
            with open(os.path.join(folder, "npz", "dataset.json")) as f:
                task = json.load(f)["task"]
            self.assertEqual(task["prompts"], "data.npz:prompts")
            self.assertEqual(task["validation_targets"], "data.npz:validation_targets")

    def test_prompts_alone_are_certified_and_nothing_is_fitted(self):
        # No targets: lambda_min is that of NumPy's own second moment of psi (1e-8 relative),
        # the same bits as the run with targets on the same prompts, and there is no fit.
        rng = np.random.default_rng(5)
        Z = rng.standard_normal((1500, 4, 3))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            r = mhla_lab.fit(Z, eval={"spectrum": "full"})
        self.assertTrue(any("no targets" in str(w.message) for w in caught))
        psi = mhla_lab.features(Z)
        lam = np.linalg.eigvalsh(psi.T @ psi / len(Z))
        self.assertTrue(r["certified"])
        self.assertLess(abs(r["lambda_min"] - lam[0]), 1e-8 * abs(lam[0]))
        self.assertLess(np.abs(r["spectrum"] - lam).max(), 1e-8 * lam[-1])
        self.assertEqual(r["d_out"], 0)
        self.assertEqual(r["solve_method"], "none")
        self.assertIsNone(r["P"])
        for key in ("train_mse", "heads", "rank", "distance_p"):
            self.assertNotIn(key, r)
        with_targets = mhla_lab.fit(Z, rng.standard_normal((1500, 2)), eval={"spectrum": "full"})
        for key in ("lambda_min", "lambda_max", "null_dim", "tolerance"):
            self.assertEqual(r[key], with_targets[key], key)
        self.assertTrue(np.array_equal(r["lambda_trace"], with_targets["lambda_trace"]))
        # Too few prompts (N = 10 < D = 18): not certified, the null space at least D - N.
        few = mhla_lab.fit(Z[:10])
        self.assertFalse(few["certified"])
        self.assertGreaterEqual(few["null_dim"], 8)

    def test_held_out_set_gives_val_mse(self):
        # A held-out set: val_mse is NumPy's mean squared error of the fitted P on it (1e-12
        # relative), the fit and the certificate are those of the training data alone, and
        # the arrays give the bits the exported files give.
        rng = np.random.default_rng(9)
        Z = rng.standard_normal((400, 4, 3))
        Y = rng.standard_normal((400, 2))
        VZ = rng.standard_normal((70, 4, 3))
        VY = rng.standard_normal((70, 2))
        r = mhla_lab.fit(Z, Y, validation_prompts=VZ, validation_targets=VY,
                         eval={"lambda_trace": 0})
        plain = mhla_lab.fit(Z, Y, eval={"lambda_trace": 0})
        self.assertNotIn("val_mse", plain)
        for key in ("lambda_min", "train_mse", "null_dim"):
            self.assertEqual(r[key], plain[key], key)
        self.assertTrue(np.array_equal(r["P"], plain["P"]))
        ref = np.mean((mhla_lab.predict(r["P"], VZ) - VY) ** 2)
        self.assertLess(abs(r["val_mse"] - ref), 1e-12 * ref)
        self.assertEqual(r["config"]["eval"]["val_samples"], 70)
        with tempfile.TemporaryDirectory() as folder:
            proc = subprocess.run(
                [BINARY, "export-data", "--set", "task.samples=300", "--set",
                 "eval.val_samples=40", "--out", folder], capture_output=True, text=True)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            arrays = [np.load(os.path.join(folder, f + ".npy")) for f in
                      ("prompts", "targets", "validation_prompts", "validation_targets")]
            task = {"kind": "dataset"}
            for key in ("prompts", "targets", "validation_prompts", "validation_targets"):
                task[key] = os.path.join(folder, key + ".npy")
            files = mhla_lab.solve({"task": task})
            mem = mhla_lab.fit(arrays[0], arrays[1], validation_prompts=arrays[2],
                               validation_targets=arrays[3])
            self.assertEqual(mem["val_mse"], files["val_mse"])
        cases = [
            (lambda: mhla_lab.fit(Z, Y, validation_prompts=VZ), "task.validation_prompts",
             "give both"),
            (lambda: mhla_lab.fit(Z, Y, validation_targets=VY), "task.validation_prompts",
             "give both"),
            (lambda: mhla_lab.fit(Z, validation_prompts=VZ, validation_targets=VY),
             "task.validation_prompts", "needs targets"),
            (lambda: mhla_lab.fit(Z, Y, validation_prompts=VZ[:, :, :2], validation_targets=VY),
             "task.validation_prompts", "expected N_val x 4 x 3"),
            (lambda: mhla_lab.fit(Z, Y, validation_prompts=VZ, validation_targets=VY[:, :1]),
             "task.validation_targets", "expected N_val x 2"),
            (lambda: mhla_lab.fit(Z, Y, validation_prompts=VZ, validation_targets=VY[:60]),
             "task.validation_targets", "one target row per prompt"),
        ]
        badVY = VY.copy()
        badVY[5, 0] = np.nan
        cases.append((lambda: mhla_lab.fit(Z, Y, validation_prompts=VZ, validation_targets=badVY),
                      "task.validation_targets", "nan at [5, 0]"))
        for call, key, text in cases:
            with self.assertRaises(mhla_lab.ConfigError) as e:
                call()
            self.assertEqual(e.exception.key, key, str(e.exception))
            self.assertIn(text, str(e.exception))

    def test_bad_data_names_the_key_and_what_is_allowed(self):
        rng = np.random.default_rng(1)
        Z = rng.standard_normal((50, 3, 2))
        Y = rng.standard_normal((50, 2))
        cases = [
            (lambda: mhla_lab.fit(Z, Y[:49]), "task.targets", "49 rows"),
            (lambda: mhla_lab.fit(Z, Y[:, None, :]), "task.targets", "2 dimensions"),
            (lambda: mhla_lab.fit(Z, None, solver={"heads": 1}), "solver.heads",
             "without task.targets"),
            (lambda: mhla_lab.fit(rng.standard_normal((5, 2, 65)), np.zeros((5, 1))),
             "task.prompts", "token dimension d = 65"),
            (lambda: mhla_lab.fit(Z, Y, solver={"ridge": -1}), "solver.ridge", "ridge"),
            (lambda: mhla_lab.fit(Z, Y, eval=[1]), "eval", "a dict"),
        ]
        bad = Z.copy()
        bad[7, 1, 0] = np.nan
        cases.append((lambda: mhla_lab.fit(bad, Y), "task.prompts", "nan at [7, 1, 0]"))
        badY = Y.copy()
        badY[3, 1] = -np.inf
        cases.append((lambda: mhla_lab.fit(Z, badY), "task.targets", "-inf at [3, 1]"))
        for call, key, text in cases:
            with self.assertRaises(mhla_lab.ConfigError) as e:
                call()
            self.assertEqual(e.exception.key, key, str(e.exception))
            self.assertIn(text, str(e.exception))


    def test_the_explorer_runs_on_data(self):
        # N = 12 generic prompts against D = 18 features: psi of the 12 prompts are independent,
        # so Lambda has null dimension D - N = 6, which the explorer's relations, its one
        # certificate checkpoint (at N, the file's end) and the noise block all see; the numbers
        # that need a teacher are absent (None), those against the fit are there.
        rng = np.random.default_rng(11)
        Z = rng.standard_normal((12, 4, 3))
        y = mhla_lab.predict(rng.standard_normal((1, 18)), Z)
        r = mhla_lab.fit(Z, y, eval={"identifiability": "full"})
        self.assertFalse(r["certified"])
        x = r["identifiability"]
        self.assertEqual(x["null_relations"]["null_dim"], 6)
        cps = x["certificate_samples"]["checkpoints"]
        self.assertEqual([(c["samples"], c["null_dim"]) for c in cps], [(12, 6)])
        self.assertIsNone(x["certificate_samples"]["certificate_samples"])
        self.assertEqual(x["certificate_samples"]["budget"], 12)
        self.assertGreaterEqual(x["min_heads"]["min_heads"], 1)
        self.assertEqual([p["heads"] for p in x["probes"]], [1, 2, 4])
        for p in x["probes"]:
            self.assertIsNone(p["ood_rel_mse"])
            if p["found"]:
                self.assertGreater(p["ood_rel_to_fit"], 0)
        self.assertIn("noise", x)
        # The prompts alone: the same relations and checkpoint, nothing about a fit.
        bare = mhla_lab.fit(Z, eval={"identifiability": "full"})["identifiability"]
        self.assertEqual(bare["null_relations"], x["null_relations"])
        self.assertEqual(bare["certificate_samples"], x["certificate_samples"])
        for key in ("min_heads", "probes", "noise"):
            self.assertNotIn(key, bare)


class DocsExample(unittest.TestCase):
    """docs/python.md's code blocks, run in order as one notebook (in a temporary folder)."""

    def test_the_page_runs_and_its_comments_hold(self):
        page = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "python.md")
        with open(page, encoding="utf-8") as f:
            text = f.read()
        blocks = [b.split("```", 1)[0] for b in text.split("```python\n")[1:]]
        self.assertGreaterEqual(len(blocks), 6)
        try:
            import torch  # noqa: F401
            have_torch = True
        except ImportError:
            have_torch = False
        ns = {}
        here = os.getcwd()
        with tempfile.TemporaryDirectory() as folder, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            os.chdir(folder)
            try:
                for k, code in enumerate(blocks):
                    if "import torch" in code and not have_torch:
                        continue
                    with open(os.devnull, "w") as null:
                        with contextlib.redirect_stdout(null):
                            exec(compile(code, "%s block %d" % (page, k + 1), "exec"), ns)
                self.assertTrue(os.path.exists("prompts.npy") and os.path.exists("targets.npy"))
            finally:
                os.chdir(here)
        # What the comments say: psi by hand to rounding, the certified fit computes the
        # teacher's function on fresh prompts, lambda_min of psi's moment > 0, and the
        # certificate of the prompts alone is that of the fit.
        if have_torch:  # the PyTorch block's psi, of its prompts
            self.assertLess(np.abs(ns["psi"] - mhla_lab.features(ns["prompts"])).max(), 1e-12)
        self.assertLess(np.abs(ns["by_hand"] - mhla_lab.features(ns["Z"])).max(), 1e-12)
        self.assertGreater(np.linalg.eigvalsh(ns["Lam"])[0], 0)
        self.assertEqual(ns["bare"]["lambda_min"], ns["r"]["lambda_min"])
        self.assertIsNone(ns["bare"]["P"])
        self.assertEqual(ns["r"]["P"].shape, (2, 40))


class Errors(unittest.TestCase):
    def test_bad_keys_name_the_key_as_the_cli_does(self):
        cases = [
            ("task.dd", lambda e: e["task"].update(dd=1)),
            ("task.d", lambda e: e["task"].update(d=0)),
            ("task.d", lambda e: e["task"].update(d="three")),
            ("solver.kind", lambda e: e["solver"].update(kind="lstsq")),
            ("eval.spectrum", lambda e: e["eval"].update(spectrum=3)),
        ]
        for key, change in cases:
            e = small_experiment()
            change(e)
            with self.subTest(key=key, experiment=e):
                with self.assertRaises(ValueError) as cm:
                    mhla_lab.solve(e)
                err = cm.exception
                self.assertIsInstance(err, mhla_lab.ConfigError)
                self.assertEqual(err.key, key)
                self.assertIn(key, err.message)
                self.assertEqual(str(err), err.message)
                # The CLI prints the same message after its prefix and the file's name.
                with tempfile.TemporaryDirectory() as folder:
                    proc, path, _ = run_cli(e, folder)
                self.assertEqual(proc.returncode, 2)
                self.assertEqual(proc.stderr.strip(), f"mhla-lab solve: {path}: {err.message}")

    def test_values_python_cannot_write_as_json(self):
        cases = [
            ("task.noise", lambda e: e["task"].update(noise=float("nan")), "not finite"),
            ("task.seed", lambda e: e["task"].update(seed=2**70), "64 bits"),
            ("task.pairs", lambda e: e["task"].update(pairs={1, 2}), "type set"),
            ("task", lambda e: e["task"].update({3: 1}), "not a str"),
        ]
        for key, change, what in cases:
            e = small_experiment()
            change(e)
            with self.subTest(key=key):
                with self.assertRaises(mhla_lab.ConfigError) as cm:
                    mhla_lab.solve(e)
                self.assertEqual(cm.exception.key, key)
                self.assertIn(what, str(cm.exception))
                self.assertIn("allowed", str(cm.exception))
        with self.assertRaises(mhla_lab.ConfigError) as cm:
            mhla_lab.solve([("task", {})])
        self.assertIn("expected a dict", str(cm.exception))

    def test_bad_threads(self):
        for threads in (0, -1, 257, 2.0, True, "2"):
            with self.subTest(threads=threads):
                with self.assertRaises(mhla_lab.ConfigError) as cm:
                    mhla_lab.solve(small_experiment(), threads=threads)
                self.assertEqual(cm.exception.key, "threads")
                self.assertIn("[1, 256]", str(cm.exception))


class Cancel(unittest.TestCase):
    def test_gil_is_released_while_core_runs(self):
        ticks = []
        stop = threading.Event()

        def tick():
            while not stop.is_set():
                ticks.append(time.perf_counter())
                time.sleep(0.002)

        e = {"task": {"kind": "random_mhla", "d": 8, "samples": 200000, "seed": 3},
             "eval": {"identifiability": "none"}}
        ticker = threading.Thread(target=tick)
        ticker.start()
        time.sleep(0.01)
        t0 = time.perf_counter()
        mhla_lab.solve(e, threads=1)
        t1 = time.perf_counter()
        stop.set()
        ticker.join()
        during = [t for t in ticks if t0 < t < t1]
        # A Python thread runs while the core works: no gap between its ticks near the run's
        # length (with the GIL held it would not tick at all).
        gaps = np.diff([t0] + during + [t1])
        self.assertGreater(t1 - t0, 0.2)
        self.assertLess(gaps.max(), 0.5 * (t1 - t0), f"longest gap {gaps.max():.3f} s")

    def test_ctrl_c_cancels_a_d16_solve(self):
        # d = 16 (D = 2176), N = 40000: tens of seconds of accumulation, certificate and
        # evaluation; SIGINT (what Ctrl+C sends) at several moments of the run.
        e = {"task": {"kind": "random_mhla", "d": 16, "samples": 40000, "seed": 3},
             "solver": {"kind": "poly"}, "eval": {"identifiability": "none"}}
        latencies = []
        for delay in (0.05, 0.3, 1.0, 2.5):
            sent = []

            def interrupt():
                sent.append(time.perf_counter())
                os.kill(os.getpid(), signal.SIGINT)

            timer = threading.Timer(delay, interrupt)
            timer.start()
            try:
                mhla_lab.solve(e, threads=2)
                timer.cancel()  # a fast machine finished first: no cancel to time
            except KeyboardInterrupt:
                latencies.append((time.perf_counter() - sent[0]) * 1000.0)
            try:
                timer.join()
            except KeyboardInterrupt:
                pass  # the signal came just after the run ended
        self.assertGreaterEqual(len(latencies), 2, "the runs ended before the interrupts")
        worst = max(latencies)
        print(f"\ncancel latency of a d = 16 solve (SIGINT to KeyboardInterrupt): "
              + ", ".join(f"{x:.1f}" for x in latencies)
              + f" ms; worst {worst:.1f} ms (target {CANCEL_TARGET_MS:.0f} ms)", flush=True)
        self.assertLess(worst, CANCEL_BOUND_MS)
        # The module is usable after a cancel.
        self.assertTrue(mhla_lab.solve(small_experiment())["certified"])


if __name__ == "__main__":
    unittest.main()
