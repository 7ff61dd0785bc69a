"""``python -m vesta`` / ``vesta``: the CLI, a thin layer over the Python SDK.

The same commands, flags, ``--json`` output and exit codes as the TypeScript ``vesta`` client
commands (packages/cli): 0 success; 1 the service answered with an error, could not be reached,
or scoring failed; 2 usage (bad arguments, no API key, unreadable file); 130 interrupted.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, TextIO, Tuple, cast
from urllib.parse import urlsplit

from . import __version__
from ._client import DEFAULT_BASE_URL, Vesta
from ._core import check_base_url as core_check
from ._object import ApiObject
from ._exceptions import (
    ApiConnectionError,
    ApiError,
    ApiTimeoutError,
    InvalidArgumentError,
    MissingApiKeyError,
    ScoringFailedError,
    UploadSourceError,
    VestaError,
    VideoGoneError,
    WaitTimeoutError,
)

EXIT_OK, EXIT_FAILURE, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130

#: The spec's CLI table (and the discovery reads): every command both CLIs offer.
COMMANDS = (
    "score get", "score reset", "score upload", "score remove",
    "rank get", "rank reset", "rank upload", "rank current", "rank remove",
    "bench create", "bench list", "bench get", "bench cancel", "bench delete",
    "bench videos", "bench csv", "bench logs", "bench models",
    "dimensions list", "api-keys create", "api-keys revoke",
)


class UsageError(VestaError):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # type: ignore[override]
        raise UsageError("usage", message)


def dashboard_keys_url(base_url: str) -> str:
    return f"{base_url.rstrip('/')}/dashboard/api-keys"


def before_dashboard(verb: str) -> str:
    command = "create-key --user NAME" if verb == "create" else "revoke-key PREFIX"
    return f"sign in there; on the server host the operator can also run `vesta admin {command}`"


class Cli:
    def __init__(self, env: Dict[str, str], stdout: TextIO, stderr: TextIO) -> None:
        self.env = env
        self.stdout = stdout
        self.stderr = stderr
        self.json = False
        #: The service address in use, once the arguments are parsed (tells the service from the
        #: blob store an upload goes to when an address cannot be reached).
        self.service_url: Optional[str] = None

    def base_url(self, args: argparse.Namespace) -> str:
        return args.base_url or self.env.get("VESTA_BASE_URL") or DEFAULT_BASE_URL

    def client(self, args: argparse.Namespace) -> Vesta:
        check_base_url(self.base_url(args), args.base_url is not None)
        name = args.api_key_env or "VESTA_API_KEY"
        key = self.env.get(name)
        if not key:
            hint = " (or name another variable with --api-key-env)" if name == "VESTA_API_KEY" else ""
            raise UsageError(
                "missing_api_key",
                f"No API key: the {name} environment variable is not set. Create a key in the dashboard "
                f"({dashboard_keys_url(self.base_url(args))}; {before_dashboard('create')}), then export {name}=<key>{hint}.",
            )
        return Vesta(api_key=key, base_url=self.base_url(args), source="cli")

    def print(self, value: Any, human: Callable[[], str]) -> None:
        if self.json:
            self.stdout.write(json.dumps(value, indent=2, ensure_ascii=False) + "\n")
        else:
            text = human()
            if text:
                self.stdout.write(text if text.endswith("\n") else text + "\n")

    def note(self, text: str) -> None:
        if not self.json:
            self.stderr.write(text + "\n")

    def fail(self, err: BaseException) -> int:
        code, body, exit_code = describe_error(err, self.service_url)
        if self.json:
            self.stderr.write(json.dumps(body) + "\n")
        else:
            e = body["error"]
            extra: List[str] = []
            if "status" in e:
                extra.append(f"HTTP {e['status']}")
            if e.get("requestId"):
                extra.append(f"request {e['requestId']}")
            suffix = f" ({', '.join(extra)})" if extra else ""
            self.stderr.write(f"error {code}: {e['detail']}{suffix}\n")
        return exit_code


def check_base_url(base_url: str, from_flag: bool) -> None:
    """The service address must be an absolute http(s) URL. ``localhost:8080`` is refused (a usage
    error, exit 2) rather than completed with ``http://``: a guessed scheme could send the key in
    clear text to a host that expects https."""
    try:
        core_check(base_url)
    except InvalidArgumentError:
        source = "--base-url" if from_flag else "VESTA_BASE_URL"
        raise UsageError(
            "invalid_base_url",
            f"{source} must be an http:// or https:// address, e.g. http://localhost:8080 (got {json.dumps(base_url)}).",
        )


def _origin(url: str) -> Optional[Tuple[str, str, int]]:
    try:
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        port = parts.port or {"http": 80, "https": 443}.get(scheme, 0)
    except ValueError:
        return None
    return (scheme, (parts.hostname or "").lower(), port) if parts.hostname else None


def describe_error(err: BaseException, base_url: Optional[str] = None) -> "tuple[str, Dict[str, Any], int]":
    """Maps any raised error to its code, JSON body and exit code. ``base_url`` (the service address
    in use) tells a service that cannot be reached from an upload URL elsewhere (an S3 bucket) that
    cannot."""
    if isinstance(err, KeyboardInterrupt):
        return "interrupted", {"error": {"code": "interrupted", "detail": "Interrupted; the request was aborted."}}, EXIT_INTERRUPTED
    if isinstance(err, ApiError):
        e: Dict[str, Any] = {"code": err.code, "detail": err.detail, "status": err.status}
        if err.request_id:
            e["requestId"] = err.request_id
        return err.code, {"error": e}, EXIT_FAILURE
    if isinstance(err, ApiConnectionError):  # ApiTimeoutError is one
        elsewhere = base_url is not None and _origin(err.url) != _origin(base_url)
        if isinstance(err, ApiTimeoutError):
            hint = ""
        elif elsewhere:
            hint = ". That is the service’s blob store (the clip goes straight to it): it must be reachable from this machine."
        else:
            hint = ". Is the service running there? Set --base-url or VESTA_BASE_URL."
        return err.code, {"error": {"code": err.code, "detail": f"{err.message}{hint}", "url": err.url}}, EXIT_FAILURE
    if isinstance(err, (MissingApiKeyError, UploadSourceError, UsageError, InvalidArgumentError)):
        return err.code, {"error": {"code": err.code, "detail": err.message}}, EXIT_USAGE
    if isinstance(err, (ScoringFailedError, VideoGoneError)) or (isinstance(err, WaitTimeoutError) and err.video_id is not None):
        return err.code, {"error": {"code": err.code, "detail": err.message, "videoId": err.video_id}}, EXIT_FAILURE
    if isinstance(err, VestaError):
        return err.code, {"error": {"code": err.code, "detail": err.message}}, EXIT_FAILURE
    return "cli_error", {"error": {"code": "cli_error", "detail": str(err)}}, EXIT_FAILURE


def _table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    cells = [[str("" if c is None else c) for c in row] for row in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths)).rstrip()]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells]
    return "\n".join(lines)


def _fields(values: Dict[str, Any]) -> str:
    width = max(len(k) for k in values)
    out: List[str] = []
    for k, v in values.items():
        text = ", ".join(map(str, cast(List[Any], v))) if isinstance(v, list) else ("-" if v is None else str(v))
        out.append(f"{k.ljust(width)}  {text}")
    return "\n".join(out)


def _render_session(s: Dict[str, Any]) -> str:
    head: Dict[str, Any] = {"runId": s["runId"], "createdAt": s["createdAt"]}
    if s.get("kind") == "rank":
        head["prompt"] = s.get("prompt")
        head["promptLocked"] = s.get("promptLocked")
    head["videos"] = len(s["videos"])
    videos: List[Dict[str, Any]] = s["videos"]
    rows = [[v["videoId"], v["fileName"], v["state"], len(v["scores"]), (v["error"] or {"code": ""})["code"] if v.get("error") else ""] for v in videos]
    return _fields(head) + "\n\n" + _table(["video", "file", "state", "scores", "error"], rows)


def _render_video(v: Dict[str, Any]) -> str:
    err = v.get("error")
    head = _fields({"videoId": v["videoId"], "fileName": v["fileName"], "state": v["state"], "prompt": v.get("prompt"),
                    "error": f"{err['code']}: {err['detail']}" if err else None})
    rows = [[s["dimension"], s["value"], s["method"], f"{s['frames']['count']} frames"] for s in v["scores"]]
    rows += [[f["dimension"], "failed", f["code"], f["detail"]] for f in v["failures"]]
    notice = v.get("promptNotice")
    head += f"\nNote: {notice['detail']}" if notice else ""
    return head + ("\n\n" + _table(["dimension", "value", "method", "notes"], rows) if rows else "")


def _render_run(r: Dict[str, Any]) -> str:
    p = r["progress"]
    err = r.get("error")
    return _fields({
        "id": r["id"], "name": r["name"], "status": r["status"], "model_id": r["model_id"],
        "runner_id": r.get("runner_id") or "(any runner serving the model)", "dimensions": r["dimensions"],
        "progress": f"{p['tasks_done']}/{p['tasks_total']} done, {p['tasks_generated']} generated, {p['tasks_failed']} failed",
        "error": f"{err['code']}: {err['detail']}" if err else None,
        "created_at": r["created_at"], "finished_at": r.get("finished_at"),
    }) + _run_notes(r)


def _run_notes(r: Dict[str, Any]) -> str:
    """What the run says about the prompt and the dimensions it could not score (with the fix)."""
    unscored: List[Dict[str, Any]] = r.get("unscored_dimensions") or []
    notes = [f"Not scored: {u['detail']}" for u in unscored]
    if r.get("prompt_notice"):
        notes.append(f"Note: {r['prompt_notice']['detail']}")
    return "".join("\n" + n for n in notes)


def _footer(page: Dict[str, Any]) -> str:
    more = f" · more: --page {page['page'] + 1}" if page["hasMore"] else ""
    return f"page {page['page']} · {len(page['items'])} of {page['total']}{more}"


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("must be a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _auxiliary(text: str) -> Dict[str, str]:
    try:
        value = json.loads(text)
    except ValueError:
        raise argparse.ArgumentTypeError('must be a JSON object, e.g. \'{"object":"dog","color":"red"}\'') from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError("must be a JSON object")
    return {str(k): str(v) for k, v in cast(Dict[Any, Any], value).items()}


def _page_or_all(args: argparse.Namespace, one: Callable[[int, Optional[int]], ApiObject], every: Callable[[], Iterator[ApiObject]]) -> Dict[str, Any]:
    if not args.all:
        page: Dict[str, Any] = one(args.page or 1, args.limit).to_dict()
        return page
    items = [item.to_dict() for item in every()]
    return {"items": items, "page": 1, "limit": len(items), "total": len(items), "hasMore": False}


def build_parser() -> argparse.ArgumentParser:
    common = _Parser(add_help=False)
    common.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="machine-readable output")
    common.add_argument("--base-url", default=argparse.SUPPRESS, help="service address (env VESTA_BASE_URL, default http://localhost:8080)")
    common.add_argument("--api-key-env", default=argparse.SUPPRESS, help="environment variable holding the API key (default VESTA_API_KEY)")
    parser = _Parser(prog="vesta", description="Vesta: score, rank and benchmark text-to-video clips (Python client)", parents=[common])
    parser.add_argument("-V", "--version", action="version", version=__version__)
    groups = parser.add_subparsers(dest="group", metavar="COMMAND", parser_class=_Parser)

    def sub(group: Any, name: str, help_text: str) -> argparse.ArgumentParser:
        return group.add_parser(name, help=help_text, description=help_text, parents=[common])

    for kind in ("score", "rank"):
        g = groups.add_parser(kind, help=f"your {kind.title()} session", parents=[common]).add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
        sub(g, "get", f"show your {kind.title()} session (created if absent)")
        sub(g, "reset", f"retire your {kind.title()} session and start an empty one")
        up = sub(g, "upload", "upload a clip (upload-url, PUT, confirm-upload); --wait waits for its scores")
        up.add_argument("file")
        up.add_argument("-p", "--prompt", required=kind == "score")
        up.add_argument("-w", "--wait", action="store_true")
        up.add_argument("--timeout", type=float, default=900.0, help="seconds to wait (default 900)")
        up.add_argument("--content-type")
        up.add_argument("--file-name")
        up.add_argument("--auxiliary", type=_auxiliary)
        what = "clip" if kind == "score" else "candidate"
        rm = sub(g, "remove", f"remove one {what} from your {kind.title()} session, with its scores and stored bytes")
        rm.add_argument("video_id", metavar="VIDEO_ID")
        rm.add_argument("--run-id", help=f"a {kind.title()} session run id (default: your current session)")
        if kind == "rank":
            cur = sub(g, "current", "show the ranked leaderboard of your current Rank session (or of --run-id)")
            cur.add_argument("--run-id")

    b = groups.add_parser("bench", help="Bench runs", parents=[common]).add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    c = sub(b, "create", "create a Bench run")
    c.add_argument("-n", "--name", required=True)
    c.add_argument("-d", "--dimensions", required=True, action="append", help="comma-separated or repeated")
    c.add_argument("-m", "--model-id", required=True)
    c.add_argument("-r", "--runner-id")
    c.add_argument("--samples-per-prompt", type=_positive_int)
    c.add_argument("--prompts-per-dimension", type=_positive_int)
    for name, what in (("list", "runs"), ("videos", "clips"), ("logs", "lines")):
        p = sub(b, name, f"list {what}")
        if name != "list":
            p.add_argument("id")
        p.add_argument("--page", type=_positive_int)
        p.add_argument("--limit", type=_positive_int)
        p.add_argument("--all", action="store_true")
    for name in ("get", "cancel", "delete"):
        sub(b, name, f"{name} a Bench run").add_argument("id")
    csv = sub(b, "csv", "download a run's scorecard as CSV")
    csv.add_argument("id")
    csv.add_argument("-o", "--output")
    sub(b, "models", "list the video generators Bench runs can evaluate")

    d = groups.add_parser("dimensions", help="evaluation dimensions", parents=[common]).add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub(d, "list", "list every dimension")
    k = groups.add_parser("api-keys", help="API keys are managed only in the web dashboard", parents=[common]).add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for verb in ("create", "revoke"):
        sub(k, verb, f"not available from the CLI: {verb} keys in the dashboard").add_argument("id", nargs="?")
    return parser


def run(cli: Cli, args: argparse.Namespace) -> int:
    cmd = f"{args.group} {args.command}"
    if cmd.startswith("api-keys"):
        verb = args.command
        url = dashboard_keys_url(cli.base_url(args))
        detail = f"API keys are {'created' if verb == 'create' else 'revoked'} only in the web dashboard: open {url} ({before_dashboard(verb)})"
        if cli.json:
            cli.stderr.write(json.dumps({"error": {"code": "dashboard_only", "detail": detail, "url": url}}) + "\n")
        else:
            cli.stderr.write(f"error {detail}\n")
        return EXIT_USAGE
    v = cli.client(args)
    if args.group in ("score", "rank"):
        res = v.score if args.group == "score" else v.rank
        if args.command == "get":
            s = res.get_or_create().to_dict()
            cli.print(s, lambda: _render_session(s))
        elif args.command == "reset":
            s = res.reset().to_dict()
            cli.print(s, lambda: f"Reset. New run id {s['runId']}")
        elif args.command == "upload":
            progress = None if cli.json else _progress_printer(cli)
            kwargs: Dict[str, Any] = dict(wait=args.wait, auxiliary=args.auxiliary, file_name=args.file_name,
                                          content_type=args.content_type, progress=progress, wait_timeout=args.timeout)
            if args.group == "score":
                result = v.score.upload(args.file, args.prompt, **kwargs)
            else:
                result = v.rank.upload(args.file, args.prompt, **kwargs)
            out = result.to_dict()
            cli.print(out, lambda: _render_video(dict(out["video"])) if out.get("video") else
                      f"Uploaded. video {out['videoId']} is {out['state']} (run {out['runId']})")
        elif args.command == "remove":
            res.remove_video(args.video_id, args.run_id)
            what = "clip" if args.group == "score" else "candidate"
            cli.print({"videoId": args.video_id, "removed": True}, lambda: f"Removed {what} {args.video_id}")
        elif args.command == "current":
            board = v.rank.get_ranked(args.run_id).to_dict()
            note = f"\nNote: {board['promptNotice']['detail']}" if board.get("promptNotice") else ""
            cli.print(board, lambda: _fields({"runId": board["runId"], "prompt": board["prompt"], "formula": board["formula"]}) + note + "\n\n" +
                      _table(["rank", "video", "file", "overall", "state"],
                             [[e["rank"] if e["rank"] is not None else "-", e["videoId"], e["fileName"], e["overall"], e["state"]] for e in board["entries"]]))
        return EXIT_OK
    if args.group == "dimensions":
        dims = v.dimensions.list().to_dict()
        cli.print(dims, lambda: _table(["id", "category", "default method", "workflows", "name"],
                                       [[x["id"], x["category"], x["defaultMethod"] or "unavailable", ",".join(x["workflows"]), x["name"]] for x in dims["items"]]))
        return EXIT_OK
    bench = v.bench
    if args.command == "create":
        dims_list = [d for chunk in args.dimensions for d in chunk.split(",") if d]
        r = bench.create(args.name, args.model_id, dims_list, args.runner_id,
                         samples_per_prompt=args.samples_per_prompt, prompts_per_dimension=args.prompts_per_dimension).to_dict()
        cli.print(r, lambda: "Created.\n" + _render_run(r))
    elif args.command == "list":
        page = _page_or_all(args, bench.list_page, lambda: bench.list(100))
        cli.print(page, lambda: _table(["id", "name", "status", "model", "done", "created"],
                                       [[r["id"], r["name"], r["status"], r["model_id"], f"{r['progress']['tasks_done']}/{r['progress']['tasks_total']}", r["created_at"]] for r in page["items"]]) + "\n" + _footer(page))
    elif args.command in ("get", "cancel"):
        r = (bench.get(args.id) if args.command == "get" else bench.cancel(args.id)).to_dict()
        cli.print(r, lambda: ("Cancelled.\n" if args.command == "cancel" else "") + _render_run(r))
    elif args.command == "delete":
        bench.delete(args.id)
        cli.print({"id": args.id, "deleted": True}, lambda: f"Deleted {args.id}")
    elif args.command == "videos":
        page = _page_or_all(args, lambda page_no, limit: bench.videos(args.id, page_no, limit), lambda: bench.all_videos(args.id, 100))
        cli.print(page, lambda: _table(["seq", "state", "video", "scores", "prompt"],
                                       [[x["seq"], x["state"], x["video_id"] or "", " ".join(f"{s['dimension']}={s['value']:.4f}" for s in x["scores"]), x["prompt"]] for x in page["items"]]) + "\n" + _footer(page))
    elif args.command == "logs":
        page = _page_or_all(args, lambda page_no, limit: bench.logs(args.id, page_no, limit), lambda: bench.all_logs(args.id, 1000))
        cli.print(page, lambda: "\n".join([f"{x['time']} {x['level']} {x['source']} {x['message']}" for x in page["items"]] + [_footer(page)]))
    elif args.command == "csv":
        text = bench.csv(args.id)
        size = len(text.encode("utf-8"))
        if args.output:
            with open(args.output, "w", encoding="utf-8", newline="") as f:
                f.write(text)
            cli.print({"id": args.id, "file": args.output, "bytes": size}, lambda: f"Wrote {args.output} ({size} bytes)")
        elif cli.json:
            cli.print({"id": args.id, "csv": text}, lambda: "")
        else:
            cli.stdout.write(text)
    elif args.command == "models":
        models = v.models.list().to_dict()
        cli.print(models, lambda: _table(["id", "online", "runners", "name"],
                                         [[m["id"], "yes" if m["online"] else "no", ",".join(r["id"] for r in m["runners"]), m["name"]] for m in models["items"]]))
    return EXIT_OK


def _progress_printer(cli: Cli) -> Callable[[Dict[str, Any]], None]:
    state = {"last": -1}

    def show(event: Dict[str, Any]) -> None:
        if event["phase"] == "upload":
            total = event.get("total") or 0
            pct = int(event["loaded"] * 100 / total) if total else 100
            if pct // 10 != state["last"]:
                state["last"] = pct // 10
                cli.stderr.write(f"uploading {pct}%\n")
        elif event["phase"] == "confirm":
            cli.stderr.write(f"confirmed {event['videoId']}\n")
        else:
            cli.stderr.write(f"{event['videoId']}: {event['state']}\n")

    return show


def main(argv: Optional[List[str]] = None, env: Optional[Dict[str, str]] = None,
         stdout: Optional[TextIO] = None, stderr: Optional[TextIO] = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    cli = Cli(dict(os.environ if env is None else env), stdout or sys.stdout, stderr or sys.stderr)
    cli.json = "--json" in args_list
    try:
        args = build_parser().parse_args(args_list)
        if not getattr(args, "command", None):
            build_parser().print_help(cli.stderr)
            return EXIT_USAGE
        for name in ("base_url", "api_key_env"):
            if not hasattr(args, name):
                setattr(args, name, None)
        cli.service_url = cli.base_url(args)
        return run(cli, args)
    except KeyboardInterrupt as err:
        return cli.fail(err)
    except SystemExit as err:  # --help / --version
        return int(err.code or 0) if isinstance(err.code, int) else EXIT_OK
    except Exception as err:  # noqa: BLE001 - every error becomes a message and an exit code
        return cli.fail(err)
