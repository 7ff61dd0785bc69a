"""`python -m vesta` against the TypeScript `vesta`: the same commands, the same JSON shape for the
same server state, the same exit codes and key handling."""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, List, Tuple, cast

from tests.support.server import REPO, Server, corpus_clip

import vesta
from vesta.cli import COMMANDS, build_parser, describe_error

TS_BIN = os.path.join(REPO, "packages", "cli", "dist", "bin.js")
server: Server
run_id = ""


def setUpModule() -> None:
    global server, run_id
    server = Server(keys=2)
    client = vesta.Vesta(api_key=server.keys[0], base_url=server.base_url)
    client.score.upload(corpus_clip("real__sam2-coffee-pour.mp4"), prompt="coffee being poured", wait=True)
    client.rank.upload(corpus_clip("runway-gen2__toad-karate.mp4"), prompt="a toad doing karate", wait=True)
    with open(corpus_clip("show-1__toad-karate.mp4"), "rb") as f:
        clip = f.read()
    def returns_clip(prompt: str) -> bytes:
        return clip

    run = client.bench.run_with_pipeline(returns_clip, dimensions=["subject_consistency"], run_name="cli",
                                         model_id="py-cli-model", samples_per_prompt=1, prompts_per_dimension=1)
    run_id = run["id"]


def tearDownModule() -> None:
    server.stop()


def run_cli(which: str, args: List[str], env: Dict[str, str]) -> Tuple[int, str, str]:
    node = shutil.which("node") or "node"
    cmd = [node, TS_BIN, *args] if which == "ts" else [sys.executable, "-m", "vesta", *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=os.path.join(REPO, "python"),
                          env={"PATH": os.environ.get("PATH", ""), "NO_COLOR": "1", **env}, timeout=120)
    return proc.returncode, proc.stdout, proc.stderr


def parallel(jobs: List[Tuple[str, List[str], Dict[str, str]]]) -> List[Tuple[int, str, str]]:
    """Runs CLI invocations a few at a time (each is a process start), results in order."""
    with ThreadPoolExecutor(max_workers=4) as pool:
        def one(job: Tuple[str, List[str], Dict[str, str]]) -> Tuple[int, str, str]:
            return run_cli(job[0], job[1], job[2])

        return list(pool.map(one, jobs))


def subcommand(parser: argparse.ArgumentParser, dest: str, name: str) -> argparse.ArgumentParser:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and action.dest == dest:  # pyright: ignore[reportPrivateUsage]
            choices: Dict[str, argparse.ArgumentParser] = action.choices  # type: ignore[assignment]
            return choices[name]
    raise AssertionError(f"no {name} under {parser.prog}")


def shape(value: Any) -> Any:
    """The JSON structure without the values: keys and value types (lists by their first item)."""
    if isinstance(value, dict):
        return {str(k): shape(v) for k, v in sorted(cast(Dict[str, Any], value).items())}
    if isinstance(value, list):
        return [shape(value[0])] if value else []
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if value is None:
        return "null"
    return type(value).__name__


class SameCommands(unittest.TestCase):
    def test_every_command_of_the_spec_table_exists_in_both(self) -> None:
        # The TypeScript command tree, walked in one process; each Python command parses its --help.
        script = (
            f"import {{ buildProgram, CliContext }} from {json.dumps('file://' + os.path.join(REPO, 'packages', 'cli', 'dist', 'index.js'))};"
            "const p = await buildProgram(new CliContext({ stdout: process.stdout, stderr: process.stderr, env: {},"
            " interruptSignal: () => new AbortController().signal }), ['score']);"
            "const walk = (c, pre) => c.commands.flatMap((s) => s.commands.length ? walk(s, pre + s.name() + ' ')"
            " : [pre + s.name()]);"
            "process.stdout.write(JSON.stringify(walk(p, '')));"
        )
        node = shutil.which("node") or "node"
        proc = subprocess.run([node, "--input-type=module", "-e", script], capture_output=True, text=True, cwd=REPO, timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        ts_commands = set(json.loads(proc.stdout))
        for command in COMMANDS:
            self.assertIn(command, ts_commands, f"vesta {command} is missing from the TypeScript CLI")
        code, out, err = run_cli("py", ["bench", "create", "--help"], {})
        self.assertEqual(code, 0, err)
        self.assertIn("--runner-id", out)
        parser = build_parser()
        for command in COMMANDS:
            words = command.split()
            leaf = subcommand(subcommand(parser, "group", words[0]), "command", words[1])
            self.assertTrue(any("--json" in a.option_strings for a in leaf._actions), command)

    def test_same_json_shape_for_the_same_state(self) -> None:
        env = {"VESTA_API_KEY": server.keys[0], "VESTA_BASE_URL": server.base_url}
        with tempfile.TemporaryDirectory() as tmp:
            commands = [
                ["score", "get"], ["rank", "get"], ["rank", "current"], ["dimensions", "list"], ["bench", "models"],
                ["bench", "list"], ["bench", "list", "--all"], ["bench", "get", run_id], ["bench", "videos", run_id],
                ["bench", "logs", run_id, "--limit", "5"], ["bench", "csv", run_id],
                ["bench", "csv", run_id, "-o", os.path.join(tmp, "x.csv")],
            ]
            runs = parallel([(w, [*args, "--json"], env) for args in commands for w in ("py", "ts")])
            for i, args in enumerate(commands):
                results = {"py": runs[2 * i], "ts": runs[2 * i + 1]}
                for w, (code, _, err) in results.items():
                    self.assertEqual(code, 0, f"{w} {args}: {err}")
                py, ts = (json.loads(results[w][1]) for w in ("py", "ts"))
                self.assertEqual(shape(py), shape(ts), args)
                if args[:2] in (["bench", "get"], ["dimensions", "list"], ["rank", "current"], ["bench", "csv"]):
                    self.assertEqual(py, ts, args)

    def test_bench_get_says_its_scores_read_no_prompt(self) -> None:
        # #24 item 6: this server has no CLIP model; both CLIs say so beside the run's numbers.
        env = {"VESTA_API_KEY": server.keys[0], "VESTA_BASE_URL": server.base_url}
        for w in ("py", "ts"):
            code, out, err = run_cli(w, ["bench", "get", run_id], env)
            self.assertEqual(code, 0, f"{w}: {err}")
            self.assertIn("Note: this run's scores do not read the prompts: none of its dimensions reads them; "
                          "temporal_style and overall_consistency would, and need the model clip-vit-b32 — "
                          "`vesta models pull clip-vit-b32`", out, w)

    def test_same_exit_codes_and_error_shape(self) -> None:
        env = {"VESTA_API_KEY": server.keys[1], "VESTA_BASE_URL": server.base_url}
        cases = [
            (["score", "get", "--json"], {"VESTA_BASE_URL": server.base_url}, 2, "missing_api_key"),
            (["bench", "get", "bench_nope", "--json"], env, 1, "not_found"),
            (["score", "upload", "/no/such/clip.mp4", "--prompt", "p", "--json"], env, 2, "file_unreadable"),
            (["api-keys", "create", "--json"], env, 2, "dashboard_only"),
            (["bench", "create", "--name", "x", "--dimensions", "subject_consistency", "--model-id", "nope", "--json"], env, 1,
             "validation_failed"),
            (["dimensions", "list", "--json", "--base-url", "http://127.0.0.1:9"], env, 1, "connection_failed"),
            # No scheme: a usage error (exit 2), not a guess at http:// (#24 item 9).
            (["dimensions", "list", "--json", "--base-url", "localhost:8080"], env, 2, "invalid_base_url"),
            (["score", "get", "--json"], {**env, "VESTA_BASE_URL": "127.0.0.1:8080"}, 2, "invalid_base_url"),
        ]
        runs = parallel([(w, args, e) for args, e, _, _ in cases for w in ("py", "ts")])
        for i, (args, _env, code, error_code) in enumerate(cases):
            outs = {"py": runs[2 * i], "ts": runs[2 * i + 1]}
            for w, (rc, _, err) in outs.items():
                self.assertEqual(rc, code, f"{w} {args}: {err}")
                self.assertEqual(json.loads(err.strip().splitlines()[-1])["error"]["code"], error_code, f"{w} {args}")
            py_err = json.loads(outs["py"][2].strip().splitlines()[-1])
            ts_err = json.loads(outs["ts"][2].strip().splitlines()[-1])
            self.assertEqual(sorted(py_err["error"]), sorted(ts_err["error"]), args)
            if error_code in ("missing_api_key", "dashboard_only", "invalid_base_url"):  # the CLI's own words
                self.assertEqual(py_err, ts_err, args)
            # The key is never echoed.
            for w, (_, out, err) in outs.items():
                self.assertNotIn(server.keys[1], out + err)

    def test_a_wait_ended_by_a_reset_elsewhere_is_exit_1_with_the_video(self) -> None:
        code, body, exit_code = describe_error(vesta.VideoGoneError("vid_1", "score_a", "score_b"))
        self.assertEqual((code, exit_code, body["error"]["videoId"]), ("video_gone", 1, "vid_1"))
        self.assertIn("was reset (it is now score_b)", body["error"]["detail"])
        code, body, exit_code = describe_error(vesta.WaitTimeoutError("Video vid_2", 1.0, "queued", video_id="vid_2"))
        self.assertEqual((code, exit_code, body["error"]["videoId"]), ("wait_timeout", 1, "vid_2"))
        code, _, exit_code = describe_error(vesta.InvalidArgumentError("prompt", "empty"))
        self.assertEqual((code, exit_code), ("invalid_argument", 2))

    def test_usage_errors_exit_2(self) -> None:
        for w in ("py", "ts"):
            rc, _, _ = run_cli(w, ["bench", "create", "--name", "x"], {"VESTA_API_KEY": "k"})
            self.assertEqual(rc, 2, w)


if __name__ == "__main__":
    unittest.main()
