"""The Python SDK stays in step with openapi/openapi.json, and the package installs offline."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import unittest
import zipfile

from tests.support.server import REPO

import vesta
from vesta import types as generated

#: operationId -> the Python SDK method that performs it (dotted path on a Vesta instance).
PYTHON_OPERATIONS = {
    "getScoreSession": "score.get_or_create",
    "resetScoreSession": "score.reset",
    "createScoreUploadUrl": "score.create_upload_url",
    "confirmScoreUpload": "score.confirm_upload",
    "removeScoreVideo": "score.remove_video",
    "getRankSession": "rank.get_or_create",
    "resetRankSession": "rank.reset",
    "createRankUploadUrl": "rank.create_upload_url",
    "confirmRankUpload": "rank.confirm_upload",
    "getRankLeaderboard": "rank.get_ranked",
    "removeRankVideo": "rank.remove_video",
    "putUpload": "score.upload",
    "createBenchRun": "bench.create",
    "listBenchRuns": "bench.list",
    "getBenchRun": "bench.get",
    "cancelBenchRun": "bench.cancel",
    "deleteBenchRun": "bench.delete",
    "listBenchVideos": "bench.videos",
    "getBenchCsv": "bench.csv",
    "getBenchScorecard": "bench.scorecard",
    "compareBenchRuns": "bench.compare",
    "getModelBaseline": "models.baseline",
    "setModelBaseline": "models.set_baseline",
    "clearModelBaseline": "models.clear_baseline",
    "getBenchScorecard": "bench.scorecard",
    "compareBenchRuns": "bench.compare",
    "getModelBaseline": "models.baseline",
    "setModelBaseline": "models.set_baseline",
    "clearModelBaseline": "models.clear_baseline",
    "getBenchLogs": "bench.logs",
    "getVideoContent": "videos.content",
    "listDimensions": "dimensions.list",
    "listDimensionPrompts": "dimensions.prompts",
    "listModels": "models.list",
    "registerRunner": "runners.register",
    "listRunners": "runners.list",
    "getRunner": "runners.get",
    "deregisterRunner": "runners.deregister",
    "claimRunnerTask": "runners.claim",
    "heartbeatRunnerTask": "runners.heartbeat",
    "createRunnerTaskUploadUrl": "runners.create_upload_url",
    "completeRunnerTask": "runners.complete",
    "failRunnerTask": "runners.fail",
    "createJudgingCampaign": "judging.create",
    "listJudgingCampaigns": "judging.list",
    "getJudgingCampaign": "judging.get",
    "closeJudgingCampaign": "judging.close",
    "revealJudgingCampaign": "judging.reveal",
    "deleteJudgingCampaign": "judging.delete",
    "listJudgingJudges": "judging.judges",
    "addJudgingJudge": "judging.add_judge",
    "removeJudgingJudge": "judging.remove_judge",
    "getNextJudgingPairs": "judging.next_pairs",
    "castJudgingVote": "judging.vote",
    "getJudgingClipContent": "judging.clip_content",
    "exportJudgingVotes": "judging.export",
    "getJudgingRatings": "judging.ratings",
    "getJudgingAgreement": "judging.agreement",
}

#: The spec's SDK table, with its exact names.
SPEC_SDK = [
    "score.get_or_create", "score.reset", "score.upload", "rank.get_or_create", "rank.reset", "rank.upload",
    "rank.get_ranked", "bench.create", "bench.list", "bench.get", "bench.cancel", "bench.delete", "bench.videos",
    "bench.csv", "bench.logs", "bench.run_with_pipeline", "bench.wait", "dimensions.list", "models.list",
]


def resolve(client: vesta.Vesta, dotted: str) -> object:
    obj: object = client
    for part in dotted.split("."):
        obj = getattr(obj, part)
    return obj


class Contract(unittest.TestCase):
    def test_generated_types_have_no_drift(self) -> None:
        proc = subprocess.run([sys.executable, os.path.join(REPO, "python", "scripts", "generate_types.py"), "--check"],
                              capture_output=True, text=True)
        self.assertEqual(proc.returncode, 0, proc.stderr)

    def test_every_operation_maps_to_a_python_method(self) -> None:
        with open(os.path.join(REPO, "openapi", "openapi.json"), encoding="utf-8") as f:
            doc = json.load(f)
        # The SDK covers every operation a key may call, and the upload PUT; the rest are the web
        # dashboard's (cookie sessions: accounts, key management), which keys are refused on.
        default = doc.get("security", [])
        ids = {
            op["operationId"]
            for item in doc["paths"].values()
            for op in item.values()
            if "operationId" in op and (any("ApiKey" in s for s in op.get("security", default)) or op["operationId"] == "putUpload")
        }
        self.assertEqual(set(PYTHON_OPERATIONS), ids)
        client = vesta.Vesta(api_key="k", base_url="http://127.0.0.1:9")
        for dotted in list(PYTHON_OPERATIONS.values()) + SPEC_SDK:
            self.assertTrue(callable(resolve(client, dotted)), dotted)

    def test_one_exception_class_per_catalogue_code(self) -> None:
        with open(os.path.join(REPO, "openapi", "openapi.json"), encoding="utf-8") as f:
            codes = json.load(f)["components"]["schemas"]["ErrorBody"]["properties"]["code"]["enum"]
        with open(os.path.join(REPO, "packages", "server", "src", "errors.ts"), encoding="utf-8") as f:
            catalogue = f.read()
        for code in codes:
            self.assertIn(f"{code}:", catalogue)
        self.assertEqual(list(generated.ERROR_CODES), codes)
        self.assertEqual(set(vesta.ERROR_CLASSES), set(codes))
        for code, cls in vesta.ERROR_CLASSES.items():
            self.assertIn(vesta.ApiError, cls.__mro__)
            self.assertIs(getattr(vesta, cls.__name__), cls, f"{cls.__name__} is not exported by vesta")
            self.assertIn(cls.__name__, vesta.__all__)
            err = cls(status=400, code=code, detail="d", request_id="r")
            self.assertEqual((err.code, err.status, err.detail, err.request_id), (code, 400, "d", "r"))

    def test_docs_name_every_exception_class(self) -> None:
        with open(os.path.join(REPO, "docs", "python.md"), encoding="utf-8") as f:
            text = f.read()
        for code, cls in vesta.ERROR_CLASSES.items():
            self.assertIn(f"`{cls.__name__}`", text, f"docs/python.md lacks {cls.__name__} ({code})")

    def test_the_offline_build_makes_a_compressed_wheel_with_full_metadata(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            proc = subprocess.run([sys.executable, os.path.join(REPO, "python", "scripts", "build_dist.py"), tmp],
                                  capture_output=True, text=True)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            version = vesta.__version__
            wheel = os.path.join(tmp, f"vesta_sdk-{version}-py3-none-any.whl")
            self.assertTrue(os.path.isfile(os.path.join(tmp, f"vesta_sdk-{version}.tar.gz")))
            with zipfile.ZipFile(wheel) as zf:
                self.assertEqual({i.compress_type for i in zf.infolist()}, {zipfile.ZIP_DEFLATED})
                names = zf.namelist()
                metadata = zf.read(f"vesta_sdk-{version}.dist-info/METADATA").decode()
            self.assertIn("vesta/py.typed", names)
            self.assertIn(f"vesta_sdk-{version}.dist-info/LICENSE", names)
            for field in (f"Version: {version}", "License: MIT", "Author-email: The Vesta authors", "Requires-Python: >=3.9",
                          "Classifier: Programming Language :: Python :: 3.9", "Classifier: Typing :: Typed",
                          "Project-URL: Documentation, "):
                self.assertIn(field, metadata)
            # The wheel installs offline into a fresh venv.
            venv = os.path.join(tmp, "venv")
            subprocess.run([sys.executable, "-m", "venv", venv], check=True, capture_output=True)
            py = os.path.join(venv, "bin", "python")
            proc = subprocess.run([py, "-m", "pip", "install", "--no-index", "--disable-pip-version-check", "-q", wheel],
                                  capture_output=True, text=True, cwd=tmp)
            self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
            check = subprocess.run([py, "-c", "import vesta; print(vesta.__version__)"], capture_output=True, text=True, cwd=tmp)
            self.assertEqual(check.stdout.strip(), version, check.stderr)

    def test_pip_installs_offline_into_a_fresh_venv(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            venv = os.path.join(tmp, "venv")
            subprocess.run([sys.executable, "-m", "venv", venv], check=True, capture_output=True)
            py = os.path.join(venv, "bin", "python")
            proc = subprocess.run([py, "-m", "pip", "install", "--no-index", "--disable-pip-version-check", "-q", os.path.join(REPO, "python")],
                                  capture_output=True, text=True, cwd=tmp)
            self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
            check = subprocess.run([py, "-c", "import vesta, os; print(vesta.__version__, os.path.dirname(vesta.__file__))"],
                                   capture_output=True, text=True, cwd=tmp)
            self.assertEqual(check.returncode, 0, check.stderr)
            self.assertIn("site-packages", check.stdout)
            self.assertTrue(os.path.isfile(os.path.join(check.stdout.split()[1], "py.typed")))
            cli = subprocess.run([os.path.join(venv, "bin", "vesta"), "score", "get", "--json"],
                                 capture_output=True, text=True, cwd=tmp, env={"PATH": os.environ.get("PATH", "")})
            self.assertEqual(cli.returncode, 2)
            self.assertEqual(json.loads(cli.stderr)["error"]["code"], "missing_api_key")


if __name__ == "__main__":
    unittest.main()
