"""Judging campaigns (issue #23) through the Python SDK against a real server: two Bench runs made
with an in-process pipeline, a campaign from them, a judge added by user name who sees the campaign
blinded and votes on every pair (half with the sync client, half awaited with AsyncVesta), the
integrity errors as typed exceptions, the owner's ratings and agreement, and the export."""
from __future__ import annotations

import asyncio
import json
import unittest
from typing import List

from tests.support.server import Server
from tests.test_sdk import frames

import vesta

server: Server
PROMPTS = 3


def setUpModule() -> None:
    global server
    server = Server({"VESTA_RUNNER_LEASE_SECONDS": "3"}, keys=2)


def tearDownModule() -> None:
    server.stop()


def render(prompt: str, seed: int, context: vesta.PipelineContext) -> List[vesta.Frame]:
    return frames(seed)


class Judging(unittest.TestCase):
    def test_campaign_blind_votes_sync_and_async_ratings_and_export(self) -> None:
        owner = vesta.Vesta(api_key=server.keys[0], base_url=server.base_url)
        judge = vesta.Vesta(api_key=server.keys[1], base_url=server.base_url)
        # The server names the users of its keys py-user-<its pid>-<n>.
        judge_name = f"py-user-{server.proc.pid}-1"
        runs = [
            owner.bench.run_with_pipeline(
                render, dimensions=["subject_consistency"], run_name=f"py judging {model}", model_id=model,
                samples_per_prompt=1, prompts_per_dimension=PROMPTS,
            )
            for model in ("py-judge-secret-a", "py-judge-secret-b")
        ]
        self.assertEqual([r["status"] for r in runs], ["completed", "completed"])

        with self.assertRaises(vesta.ValidationFailedError):
            owner.judging.create("one run", bench_run_ids=[runs[0]["id"]])
        campaign = owner.judging.create(
            "py campaign", bench_run_ids=[r["id"] for r in runs], question="motion", votes_per_pair=1,
        )
        self.assertEqual(campaign.role, "owner")
        self.assertEqual(campaign.question.kind, "motion")
        self.assertEqual(campaign.progress.pairs, PROMPTS)

        added = owner.judging.add_judge(campaign.id, user_name=judge_name)
        self.assertEqual(added.judge.status, "active")
        self.assertIsNone(added.invite)

        # The judge's view is blind: no items, no source, no run or model name anywhere.
        seen = judge.judging.get(campaign.id)
        self.assertEqual(seen.role, "judge")
        self.assertIsNone(seen.items)
        self.assertIsNone(seen.source)
        first = judge.judging.next_pairs(campaign.id, count=2)
        raw = json.dumps(first.to_dict())
        for secret in ("py-judge-secret", runs[0]["id"], runs[1]["id"], "/api/v1/videos/"):
            self.assertNotIn(secret, raw)
        self.assertEqual(len(first.offers), 2)
        clip = judge.judging.clip_content(campaign.id, first.offers[0].left.clip_id, 0, 15)
        self.assertEqual(len(clip), 16)

        # Half the votes with the sync client …
        vote = judge.judging.vote(campaign.id, first.offers[0].offer_id, "left")
        self.assertEqual(vote.your_votes, 1)
        with self.assertRaises(vesta.AlreadyVotedError):
            judge.judging.vote(campaign.id, first.offers[0].offer_id, "right")
        with self.assertRaises(vesta.ForbiddenError):
            owner.judging.vote(campaign.id, first.offers[1].offer_id, "left")

        # … the rest awaited.
        async def rest() -> int:
            async with vesta.AsyncVesta(api_key=server.keys[1], base_url=server.base_url) as a:
                cast = 1
                while True:
                    pairs = await a.judging.next_pairs(campaign.id)
                    if pairs.done or not pairs.offers:
                        return cast
                    await a.judging.vote(campaign.id, pairs.offers[0].offer_id, "right" if cast % 2 else "tie")
                    cast += 1

        self.assertEqual(asyncio.run(rest()), PROMPTS)
        status = owner.judging.get(campaign.id)
        self.assertEqual(status.progress.votes, PROMPTS)
        self.assertEqual(status.progress.pairs_complete, PROMPTS)

        # The export: one line per vote, judge by pseudonym.
        csv = owner.judging.export(campaign.id).strip().splitlines()
        self.assertEqual(len(csv), 1 + PROMPTS)
        jsonl = [json.loads(line) for line in owner.judging.export(campaign.id, "jsonl").strip().splitlines()]
        self.assertEqual(len(jsonl), PROMPTS)
        self.assertEqual({line["judge"] for line in jsonl}, {"judge-1"})
        with self.assertRaises(vesta.ForbiddenError):
            judge.judging.export(campaign.id)

        # Closed: no more votes.
        closed = owner.judging.close(campaign.id)
        self.assertEqual(closed.status, "closed")
        self.assertIsNotNone(judge.judging.get(campaign.id).items)


if __name__ == "__main__":
    unittest.main()
