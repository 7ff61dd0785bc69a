"""bench.compare, the regression gate, scorecards and baselines against a real server, with real runs.

Three runs of one model are made with ``run_with_pipeline`` (real rendered clips, scored by the
server): a baseline and a run like it (a small square moving smoothly), and a run of noise frames
whose subject consistency is far lower. Six prompts, so the exact sign-flip test can reach
p = 1/64 < 0.025 and the gate can fire.
"""
from __future__ import annotations

import asyncio
import random
import unittest
from typing import Callable, List, Optional, Sequence, Tuple

from tests.support.server import Server

import vesta
from vesta.types import BenchComparison

server: Server
MODEL = "py-compare-model"
DIM = "subject_consistency"


def setUpModule() -> None:
    global server
    server = Server(keys=2)


def tearDownModule() -> None:
    server.stop()


def smooth(seed: int, count: int = 12, size: int = 64) -> List[vesta.Frame]:
    """A bright square moving over a gradient: the same subject from frame to frame."""
    out: List[vesta.Frame] = []
    for t in range(count):
        rows: List[bytes] = []
        x0 = (seed + t * 2) % (size - 16)
        for y in range(size):
            row = bytearray()
            for x in range(size):
                inside = x0 <= x < x0 + 16 and 24 <= y < 40
                row += bytes((250, 240, 60)) if inside else bytes(((x * 4) % 256, (y * 4) % 256, 128))
            rows.append(bytes(row))
        out.append(vesta.Frame(size, size, b"".join(rows)))
    return out


def noise(seed: int, count: int = 12, size: int = 64) -> List[vesta.Frame]:
    """Independent noise in every frame: no subject to stay consistent."""
    rng = random.Random(seed)
    return [vesta.Frame(size, size, bytes(rng.getrandbits(8) for _ in range(size * size * 3))) for _ in range(count)]


class CompareAndGate(unittest.TestCase):
    client: vesta.Vesta
    base: str
    like: str
    worse: str

    @classmethod
    def setUpClass(cls) -> None:
        cls.client = vesta.Vesta(api_key=server.keys[0], base_url=server.base_url)

        def make(name: str, render: Callable[[str, int], List[vesta.Frame]]) -> str:
            run = cls.client.bench.run_with_pipeline(
                render, dimensions=[DIM], run_name=name, model_id=MODEL,
                samples_per_prompt=1, prompts_per_dimension=6,
            )
            assert run["status"] == "completed", run
            return run["id"]

        def render_smooth(prompt: str, seed: int) -> List[vesta.Frame]:
            return smooth(seed)

        def render_noise(prompt: str, seed: int) -> List[vesta.Frame]:
            return noise(seed)

        cls.base = make("baseline", render_smooth)
        cls.like = make("like the baseline", render_smooth)
        cls.worse = make("noise", render_noise)

    def test_scorecard_has_intervals_and_equals_the_runs_stored_one(self) -> None:
        card = self.client.bench.scorecard(self.base)
        self.assertTrue(card.final)
        self.assertEqual(card.resamples, 10000)
        row = next(d for d in card.dimensions if d.dimension == DIM)
        self.assertEqual((row.clips, row.prompts), (6, 6))
        assert row.score is not None and row.ci95_low is not None and row.ci95_high is not None
        self.assertLessEqual(row.ci95_low, row.score)
        self.assertLessEqual(row.score, row.ci95_high)
        stored = self.client.bench.get(self.base)["scorecard"]
        self.assertEqual(stored, card.to_dict())

    def test_paired_comparison_finds_the_real_drop_the_same_on_every_call(self) -> None:
        cmp = self.client.bench.compare([self.base, self.worse])
        self.assertTrue(cmp.comparable)
        self.assertEqual(cmp.dimensions, [DIM])
        c = cmp.comparisons[0]
        self.assertEqual(c.mode, "paired")
        row = next(r for r in c.rows if r.name == DIM)
        self.assertEqual(row.pairs, 6)
        assert row.ci95_high is not None
        self.assertLess(row.delta, 0)
        self.assertLess(row.ci95_high, 0)
        # Six prompts, all worse: the exact two-sided sign-flip p is 2/64.
        self.assertAlmostEqual(row.p_value, 2 / 64)
        # Per prompt, largest drop first, with both runs' clips.
        deltas = [p.delta for p in c.prompts]
        self.assertEqual(len(deltas), 6)
        self.assertEqual(deltas, sorted(deltas))
        self.assertEqual(len(c.prompts[0].baseline_clips), 1)
        self.assertEqual(len(c.prompts[0].candidate_clips), 1)
        self.assertEqual(self.client.bench.compare([self.base, self.worse]).to_dict(), cmp.to_dict())
        # prompt_limit keeps the largest drops only; the rows do not change.
        top = self.client.bench.compare([self.base, self.worse], prompt_limit=2).comparisons[0]
        self.assertEqual([p.to_dict() for p in top.prompts], [p.to_dict() for p in c.prompts[:2]])
        self.assertEqual([r.to_dict() for r in top.rows], [r.to_dict() for r in c.rows])
        self.assertEqual(self.client.bench.compare([self.base, self.worse], prompt_limit=0).comparisons[0].prompts, [])

    def test_the_gate_fires_on_the_regression_and_passes_a_run_like_the_baseline(self) -> None:
        gated = self.client.bench.compare([self.base, self.worse], fail_on_regression=0.01, dimensions=[DIM])
        assert gated.gate is not None
        self.assertEqual(gated.gate.verdict, "regression")
        self.assertEqual(gated.gate.regressions, [DIM])
        self.assertEqual(gated.gate.alpha, 0.025)
        passed = self.client.bench.compare([self.base, self.like], fail_on_regression=0.05, dimensions=[DIM])
        assert passed.gate is not None
        self.assertEqual(passed.gate.verdict, "pass")
        self.assertEqual(passed.gate.regressions, [])

    def test_three_runs_state_holm(self) -> None:
        cmp = self.client.bench.compare([self.base, self.like, self.worse])
        self.assertEqual(cmp.correction.method, "holm")
        self.assertEqual([c.candidate_id for c in cmp.comparisons], [self.like, self.worse])
        for c in cmp.comparisons:
            for r in c.rows:
                self.assertGreaterEqual(r.p_adjusted, r.p_value)

    def test_bad_input_is_a_clear_error(self) -> None:
        with self.assertRaises(vesta.ValidationFailedError):
            self.client.bench.compare([self.base])
        with self.assertRaises(vesta.ValidationFailedError):
            self.client.bench.compare([self.base, self.base])
        with self.assertRaises(vesta.ValidationFailedError):
            self.client.bench.compare([self.base, self.worse], fail_on_regression=-1)
        with self.assertRaises(vesta.NotFoundError):
            self.client.bench.compare([self.base, "bench_does-not-exist"])
        other = vesta.Vesta(api_key=server.keys[1], base_url=server.base_url)
        with self.assertRaises(vesta.ForbiddenError):
            other.bench.compare([self.base, self.worse])
        # A run with no scored clip yet (no runner serves it): 409 no_scored_clips.
        waiting = self.client.bench.create("waiting", MODEL, [DIM], prompts_per_dimension=1)
        try:
            with self.assertRaises(vesta.NoScoredClipsError):
                self.client.bench.compare([self.base, waiting["id"]])
        finally:
            self.client.bench.cancel(waiting["id"])

    def test_the_async_client_compares_and_gates_the_same(self) -> None:
        """AsyncVesta's bench.compare on the same runs: the sync client's answers, awaited (two at once),
        the gate's verdicts, and the same errors for bad input and another user's runs."""

        async def attempt(client: vesta.AsyncVesta, runs: Sequence[str], margin: Optional[float] = None) -> str:
            try:
                await client.bench.compare(runs, fail_on_regression=margin)
            except vesta.VestaError as e:
                return type(e).__name__
            return "no error"

        async def main() -> Tuple[BenchComparison, BenchComparison, BenchComparison,
                                  BenchComparison, List[str]]:
            async with vesta.AsyncVesta(api_key=server.keys[0], base_url=server.base_url) as client:
                paired, three = await asyncio.gather(
                    client.bench.compare([self.base, self.worse]),
                    client.bench.compare([self.base, self.like, self.worse]),
                )
                gated = await client.bench.compare([self.base, self.worse], fail_on_regression=0.01, dimensions=[DIM])
                passed = await client.bench.compare([self.base, self.like], fail_on_regression=0.05, dimensions=[DIM])
                errors = [
                    await attempt(client, [self.base]),
                    await attempt(client, [self.base, self.worse], -1),
                    await attempt(client, [self.base, "bench_does-not-exist"]),
                ]
            async with vesta.AsyncVesta(api_key=server.keys[1], base_url=server.base_url) as other:
                errors.append(await attempt(other, [self.base, self.worse]))
            return paired, three, gated, passed, errors

        paired, three, gated, passed, errors = asyncio.run(main())
        self.assertEqual(paired.to_dict(), self.client.bench.compare([self.base, self.worse]).to_dict())
        self.assertEqual(three.to_dict(), self.client.bench.compare([self.base, self.like, self.worse]).to_dict())
        row = next(r for r in paired.comparisons[0].rows if r.name == DIM)
        self.assertAlmostEqual(row.p_value, 2 / 64)
        assert gated.gate is not None and passed.gate is not None
        self.assertEqual((gated.gate.verdict, gated.gate.regressions), ("regression", [DIM]))
        self.assertEqual((passed.gate.verdict, passed.gate.regressions), ("pass", []))
        self.assertEqual(
            errors, ["ValidationFailedError", "ValidationFailedError", "NotFoundError", "ForbiddenError"]
        )

    def test_baseline_set_read_cleared(self) -> None:
        self.assertIsNone(self.client.models.baseline(MODEL).run_id)
        self.assertEqual(self.client.models.set_baseline(MODEL, self.base).run_id, self.base)
        self.assertEqual(self.client.models.baseline(MODEL).run_id, self.base)
        self.client.models.clear_baseline(MODEL)
        self.assertIsNone(self.client.models.baseline(MODEL).run_id)
