"""Faults against the real compose stack: what breaks, what the client sees, and what is
left behind. One stack for the first five tests (file order matters: the ingest test
leaves > 1,000 vectors that the restart test reuses, though each test stands on its own),
and a second stack whose Chroma data sits on a 64 MB tmpfs for the store-write errors.

Table of results: docs/reliability.md."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.compose.conftest import ROOT, Stack
from tests.compose.kill_loop import Compose, kill_loop, summary

pytestmark = [pytest.mark.compose, pytest.mark.slow]

QUESTIONS = [
    "Posso tomar dipirona com febre?",
    "Quanto paracetamol posso tomar por dia?",
    "O que fazer em caso de pressão alta?",
]
SYNTH_CARDS = 44  # with the 38 real cards: about 1,200 chunks (> 1,000 vectors)
SYNTH_OVERRIDE = "tests/compose/synthetic-corpus.yaml"
LIST_COLLECTIONS = "/api/v2/tenants/default_tenant/databases/default_database/collections"


# --- helpers ------------------------------------------------------------------------------


def synthetic_corpus(dest: Path, n: int) -> Path:
    """The bundled cards plus `n` valid synthetic ones (~24 chunks each), readable by the
    containers' uid 10001. The synthetic text is about filing, not medicine, so the real
    questions still retrieve real cards."""
    words = (
        "arquivo agenda planilha etiqueta caixa prateleira inventário relatório estoque "
        "entrega conferência lote registro protocolo balcão fichário pasta formulário"
    ).split()
    dest.mkdir(parents=True, exist_ok=True)
    for card in (ROOT / "kb" / "cards").glob("*.md"):
        shutil.copy(card, dest / card.name)
    for i in range(n):
        card_id = f"card-{100 + i:03d}"
        paragraphs = [
            f"Cartão sintético {i}, parágrafo {j}: "
            + " ".join(words[(i * 7 + j * 3 + k) % len(words)] for k in range(40))
            + "."
            for j in range(24)
        ]
        body = "\n\n".join(paragraphs)[:11_500]
        (dest / f"{card_id}.md").write_text(
            f'---\nid: {card_id}\ntitle: "Cartão sintético {i}"\ntopics: [teste]\n'
            'source: "gerado por tests/compose/test_faults.py"\nlicense: CC0-1.0\n'
            f"accessed_at: 2026-01-01\nreviewed_at: 2026-01-01\n---\n{body}\n",
            encoding="utf-8",
        )
    dest.chmod(0o755)
    for path in dest.iterdir():
        path.chmod(0o644)
    return dest


def split_banks(names: set[str]) -> tuple[set[str], set[str]]:
    """(the builds' collections, the banks stored with the active build: app.store.banks)."""
    banks = {n for n in names if n.startswith("cards-bank-")}
    return names - banks, banks


def ingest_clean(
    stack: Stack, corpus: Path | None = None, *extra: str, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """`docker compose run --rm ingest-clean`, optionally on a mounted corpus."""
    args = ["--profile", "maintenance", "run", "--rm", *extra]
    if corpus is not None:
        args += ["-v", f"{corpus}:/corpus:ro", "-e", "CORPUS_DIR=/corpus"]
    return stack.dc(*args, "ingest-clean", timeout=timeout, check=False)


def output(res: subprocess.CompletedProcess[str]) -> str:
    return f"{res.stdout}\n{res.stderr}"


def collections(stack: Stack) -> set[str]:
    """Every collection name, read from inside the chroma container (not published)."""
    code = (
        "import json, urllib.request; "
        f"print(json.dumps([c['name'] for c in json.load(urllib.request.urlopen("
        f"'http://127.0.0.1:8000{LIST_COLLECTIONS}', timeout=10))]))"
    )
    res = stack.dc("exec", "-T", "chroma", "python3", "-c", code, timeout=60)
    return set(json.loads(res.stdout))


def gunicorn_workers(stack: Stack) -> list[int]:
    """PIDs of the gunicorn workers (children of the master, PID 1) in the api container."""
    code = (
        "import os\n"
        "for p in os.listdir('/proc'):\n"
        "    if p.isdigit():\n"
        "        try:\n"
        "            stat = open(f'/proc/{p}/stat').read().rsplit(')', 1)[1].split()\n"
        "            cmd = open(f'/proc/{p}/cmdline', 'rb').read()\n"
        "        except OSError:\n"
        "            continue\n"
        "        if stat[1] == '1' and b'gunicorn' in cmd and stat[0] != 'Z':\n"
        "            print(p)\n"
    )
    res = stack.dc("exec", "-T", "api", "python", "-c", code, timeout=60)
    return sorted(int(p) for p in res.stdout.split())


def readyz(stack: Stack) -> dict:
    res = stack.readyz()
    assert res.status_code == 200, res.text
    return res.json()


def answers(stack: Stack) -> list[tuple[str, list[str], list[tuple[str, float]]]]:
    out = []
    with stack.client() as c:
        for q in QUESTIONS:
            res = c.post("/api/ask", json={"question": q})
            assert res.status_code == 200, res.text
            body = res.json()
            assert body["citations"], body
            cited = [cit["id"] for cit in body["citations"]]
            hits = [(hit["id"], round(hit["score"], 4)) for hit in body["retrieval"]]
            out.append((body["answer"], cited, hits))
    return out


def wait_for(what: str, predicate, timeout: float, every: float = 0.5):  # noqa: ANN001, ANN201
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        value = predicate()
        if value:
            return value
        time.sleep(every)
    pytest.fail(f"timed out after {timeout:.0f} s waiting for {what}")


@contextmanager
def logs_on_failure(stack: Stack) -> Iterator[None]:
    """The shared report hook only knows the `stack` fixture; print the others' logs."""
    try:
        yield
    except BaseException:
        print(f"--- compose logs of {stack.project} ---\n{stack.logs()}")
        raise


@dataclass(frozen=True)
class Outcome:
    started: float  # monotonic
    ended: float
    status: int | None  # None: transport error
    code: str | None  # error.code of a JSON error body
    error: str | None  # transport error
    cited: bool


class Traffic:
    """`threads` clients asking questions in a loop, one new connection per request (so a
    dead worker's keep-alive connection is never reused). Bounded by `max_s`."""

    def __init__(self, stack: Stack, threads: int = 3, max_s: float = 240):
        self.stack, self.n, self.max_s = stack, threads, max_s
        self.outcomes: list[Outcome] = []
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()

    def _loop(self, offset: int) -> None:
        deadline = time.monotonic() + self.max_s
        limits = httpx.Limits(max_keepalive_connections=0)
        with httpx.Client(base_url=self.stack.base_url, timeout=60, limits=limits) as c:
            i = offset
            while not self._stop.is_set() and time.monotonic() < deadline:
                t0 = time.monotonic()
                try:
                    res = c.post("/api/ask", json={"question": QUESTIONS[i % len(QUESTIONS)]})
                except httpx.HTTPError as exc:
                    out = Outcome(t0, time.monotonic(), None, None, repr(exc), False)
                else:
                    code, cited = None, False
                    try:
                        body = res.json()
                        if res.status_code == 200:
                            cited = bool(body["citations"]) and bool(body["answer"].strip())
                        else:
                            code = body["error"]["code"]
                    except (ValueError, KeyError, TypeError):
                        code = f"non-JSON body: {res.text[:100]!r}"
                    out = Outcome(t0, time.monotonic(), res.status_code, code, None, cited)
                with self._lock:
                    self.outcomes.append(out)
                i += 1

    def start(self) -> Traffic:
        for k in range(self.n):
            t = threading.Thread(target=self._loop, args=(k,), daemon=True)
            t.start()
            self._threads.append(t)
        return self

    def since(self, t: float) -> list[Outcome]:
        with self._lock:
            return [o for o in self.outcomes if o.started >= t]

    def stop(self) -> list[Outcome]:
        self._stop.set()
        for t in self._threads:
            t.join(timeout=90)
        return list(self.outcomes)


def outage_diagnosis(stack: Stack, traffic: Traffic) -> str:
    """Where requests stall: the published port (docker-proxy) or the API itself."""
    with traffic._lock:
        answered = len(traffic.outcomes)
    try:
        with stack.client(timeout=5) as c:
            via_port = str(c.get("/healthz").status_code)
    except httpx.HTTPError as exc:
        via_port = repr(exc)
    probe = (
        "import urllib.request as u, urllib.error as e\n"
        "for p in ('/healthz', '/readyz'):\n"
        "    try: print(p, u.urlopen('http://127.0.0.1:8000' + p, timeout=5).status)\n"
        "    except e.HTTPError as x: print(p, x.code)\n"
        "    except Exception as x: print(p, repr(x))\n"
    )
    inside = stack.dc("exec", "-T", "api", "python", "-c", probe, timeout=60, check=False)
    return (
        f"{answered} requests answered in all; /healthz via the published port: {via_port}; "
        f"inside the api container: {inside.stdout.strip()!r} {inside.stderr[-300:]!r}"
    )


@pytest.fixture(scope="module")
def big_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return synthetic_corpus(tmp_path_factory.mktemp("synthetic") / "cards", SYNTH_CARDS)


# --- the tests ------------------------------------------------------------------------------


def test_chroma_killed_under_traffic_gives_clean_503s_and_recovers(stack: Stack) -> None:
    before = readyz(stack)
    workers = gunicorn_workers(stack)
    api_before = stack.inspect("api")
    traffic = Traffic(stack, threads=3).start()
    try:
        wait_for(
            "a cited 200 before the kill",
            lambda: any(o.cited for o in traffic.since(0.0)),
            timeout=60,
        )
        t_kill = time.monotonic()
        stack.dc("kill", "chroma", timeout=60)  # SIGKILL, no clean shutdown
        # Within REQUEST_DEADLINE_S (10 s) of the kill.
        deadline = time.monotonic() + 40
        while not any(o.status == 503 for o in traffic.since(t_kill)):
            if time.monotonic() > deadline:
                pytest.fail(f"no 503 within 40 s of the kill; {outage_diagnosis(stack, traffic)}")
            time.sleep(0.5)
        time.sleep(3.0)  # a few seconds of outage under traffic
        stack.dc("start", "chroma", timeout=120)
        stack.wait_healthy("chroma", timeout=90)
        t_healthy = time.monotonic()
        wait_for(
            "a cited 200 after chroma came back",
            lambda: any(o.cited for o in traffic.since(t_healthy)),
            timeout=30,
        )
        t_recovered = time.monotonic()
        time.sleep(3.0)
    finally:
        outcomes = traffic.stop()
        if stack.health("chroma") not in ("healthy", "starting"):
            stack.dc("start", "chroma", timeout=120, check=False)

    errors = [o.error for o in outcomes if o.error]
    assert errors == [], f"transport errors: {errors[:5]}"
    statuses = {o.status for o in outcomes}
    assert statuses <= {200, 503}, statuses
    codes = {o.code for o in outcomes if o.status == 503}
    assert codes and codes <= {"store_unavailable", "deadline_exceeded"}, codes
    failed_503 = [o for o in outcomes if o.status == 503]
    # Every request answers within REQUEST_DEADLINE_S (10 s by default), 503 at worst.
    slowest = sorted(round(o.ended - o.started, 2) for o in outcomes)[-3:]
    assert slowest[-1] < 10, f"a request took {slowest[-1]} s"
    assert all(o.cited for o in outcomes if o.status == 200), "a 200 without a cited answer"
    # Once one request succeeded after the recovery, every later one succeeds.
    late = [o for o in outcomes if o.started > t_recovered]
    assert late and all(o.status == 200 for o in late), [o.status for o in late]
    # The API process never restarted and no worker died or was replaced.
    api_after = stack.inspect("api")
    assert api_after["State"]["StartedAt"] == api_before["State"]["StartedAt"], "api restarted"
    assert api_after["RestartCount"] == api_before["RestartCount"]
    assert gunicorn_workers(stack) == workers, "a gunicorn worker was replaced"
    assert readyz(stack)["collection"] == before["collection"], "index lost after SIGKILL"
    print(
        f"\n{len(outcomes)} requests: {sum(o.status == 200 for o in outcomes)} x 200, "
        f"{len(failed_503)} x 503 (slowest requests {slowest} s); "
        f"first cited 200 {t_recovered - t_healthy:.1f} s after chroma turned healthy"
    )


def test_chroma_kill_loop_with_32_clients_never_passes_the_deadline(stack: Stack) -> None:
    """The short version of `python -m tests.compose.kill_loop` (30 runs in
    docs/reliability.md): KILL_LOOP_RUNS kills of chroma under 32 clients."""
    runs = int(os.environ.get("KILL_LOOP_RUNS", "2"))
    dc = Compose(stack.project, stack.env)
    out = ROOT / "artifacts" / "kill-loop"
    reports = kill_loop(dc, stack.base_url, runs, 32, 10.0, out)
    text = summary(reports, 10.0)
    out.mkdir(parents=True, exist_ok=True)
    (out / "summary.txt").write_text(
        "\n".join(json.dumps(r.__dict__) for r in reports) + f"\n{text}\n", encoding="utf-8"
    )
    print(f"\n{text}")
    assert all(r.requests > 0 and r.unavailable > 0 for r in reports), text  # the kill bit
    assert sum(r.over_deadline for r in reports) == 0, f"{text}; dumps: {reports}"
    assert not any(r.other for r in reports), text
    assert readyz(stack)["ready"] is True


def test_api_worker_killed_is_replaced_and_only_in_flight_requests_fail(stack: Stack) -> None:
    workers = gunicorn_workers(stack)
    assert len(workers) == 2, workers
    victim = workers[0]
    api_before = stack.inspect("api")
    threads = 4
    traffic = Traffic(stack, threads=threads).start()
    try:
        wait_for(
            "a cited 200 before the kill",
            lambda: any(o.cited for o in traffic.since(0.0)),
            timeout=60,
        )
        t_kill = time.monotonic()
        stack.dc(
            "exec", "-T", "api", "python", "-c", f"import os; os.kill({victim}, 9)", timeout=60
        )
        t_killed = time.monotonic()

        def replaced() -> list[int] | None:
            now = gunicorn_workers(stack)
            return now if len(now) == 2 and victim not in now else None

        new_workers = wait_for("gunicorn to fork a replacement worker", replaced, timeout=60)
        new_pid = (set(new_workers) - set(workers)).pop()
        booted = wait_for(
            f"worker {new_pid} to finish its start-up",
            lambda: (
                f"[{new_pid}] [INFO] Application startup complete"
                in stack.dc("logs", "--no-color", "api", timeout=60).stdout
            ),
            timeout=90,
        )
        assert booted
        t_booted = time.monotonic()
        time.sleep(3.0)  # both workers serving again
    finally:
        outcomes = traffic.stop()

    failed = [o for o in outcomes if o.status != 200 or not o.cited]
    # Only requests in flight at the kill may fail: at most one per client thread, and
    # each started before the kill returned.
    assert len(failed) <= threads, failed
    assert all(o.started < t_killed for o in failed), failed
    after_kill = [o for o in outcomes if o.started > t_killed]
    assert len(after_kill) >= 10 and all(o.status == 200 for o in after_kill)
    assert any(o.started > t_booted for o in outcomes)
    api_after = stack.inspect("api")
    assert api_after["State"]["StartedAt"] == api_before["State"]["StartedAt"], "api restarted"
    assert api_after["RestartCount"] == api_before["RestartCount"]
    assert readyz(stack)["ready"] is True
    print(
        f"\n{len(outcomes)} requests, {len(failed)} failed (in flight at the kill: "
        f"{[o.error or o.status for o in failed]}); worker {victim} -> {new_pid}, "
        f"replacement serving {t_booted - t_kill:.1f} s after the kill"
    )


POLL_NEW_VERSION = """
import json, sys, time, urllib.request
known, prefix = set(sys.argv[1].split(',')), sys.argv[2]
deadline = time.monotonic() + 150
while time.monotonic() < deadline:
    names = [c['name'] for c in json.load(urllib.request.urlopen(
        'http://127.0.0.1:8000LIST', timeout=5))]
    new = [n for n in names if n.startswith(prefix) and n not in known]
    if new:
        print(new[0]); sys.exit(0)
    time.sleep(0.05)
sys.exit(1)
""".replace("LIST", LIST_COLLECTIONS)


def test_ingest_killed_halfway_keeps_serving_and_next_ingest_cleans_up(
    stack: Stack, big_corpus: Path
) -> None:
    before = readyz(stack)
    old = before["collection"]
    name = f"{stack.project}-ingest-killed-{uuid.uuid4().hex[:6]}"
    chroma = stack.container_id("chroma")
    run = stack.dc(
        "--profile",
        "maintenance",
        "run",
        "-d",
        "--name",
        name,
        "-v",
        f"{big_corpus}:/corpus:ro",
        "-e",
        "CORPUS_DIR=/corpus",
        "ingest-clean",
        timeout=120,
    )
    paused = False
    try:
        # Wait (inside the chroma container, every 50 ms) for the new build to appear: the
        # ingest has embedded everything and started writing. Then freeze chroma so the
        # kill lands mid-write whatever the machine's speed, kill the ingest, thaw chroma.
        seen = stack.dc(
            "exec", "-T", "chroma", "python3", "-c", POLL_NEW_VERSION, old, "cards-v",
            timeout=180, check=False,
        )  # fmt: skip
        assert seen.returncode == 0, f"no new build appeared: {seen.stderr}\n{run.stdout}"
        partial = seen.stdout.strip()
        subprocess.run(["docker", "pause", chroma], check=True, timeout=30)
        paused = True
        subprocess.run(["docker", "kill", name], check=True, timeout=30, capture_output=True)
        subprocess.run(["docker", "unpause", chroma], check=True, timeout=30)
        paused = False
        t_kill = time.monotonic()
        # The engine reports a just-unpaused container unhealthy until its next probe, and
        # `compose run` refuses to start against an unhealthy dependency.
        stack.wait_healthy("chroma", timeout=60)
        ingest_log = subprocess.run(
            ["docker", "logs", name], capture_output=True, text=True, timeout=30
        )
    finally:
        if paused:
            subprocess.run(["docker", "unpause", chroma], check=False, timeout=30)
        subprocess.run(["docker", "rm", "-f", name], capture_output=True, timeout=60)

    # The killed ingest left its partial build and its lock; the old index still serves.
    left = collections(stack)
    assert partial in left and "cards-ingest-lock" in left, left
    assert "(active)" not in output(ingest_log), "the ingest finished before the kill"
    during = readyz(stack)
    assert during["collection"] == old, during
    answers(stack)

    # A second ingest right away is refused: the dead ingest's lock has not expired yet.
    locked = ingest_clean(stack, big_corpus)
    assert locked.returncode == 3, output(locked)
    assert "another ingest is running" in output(locked)

    # After the lock's TTL of silence, the next ingest takes over and removes the leftovers.
    time.sleep(max(0.0, 6 - (time.monotonic() - t_kill)))
    done = ingest_clean(stack, big_corpus, "-e", "INGEST_LOCK_TTL_S=5")
    assert done.returncode == 0, output(done)
    assert "breaking ingest lock" in output(done), output(done)
    # /readyz may pair the new pointer with the old build's cached metadata for up to
    # POINTER_TTL_S (2 s) after a switch (see docs/reliability.md), so wait for both.
    after = wait_for(
        "/readyz to report the new build",
        lambda: (r := readyz(stack))["chunks"] > 1000 and r["collection"] in done.stdout and r,
        timeout=15,
    )
    assert after["collection"] not in (old, partial)
    examples = "cards-examples-" + after["collection"].removeprefix("cards-")
    builds, banks = split_banks(collections(stack))
    assert builds == {"cards-active", after["collection"], examples}
    assert len(banks) == 3, banks  # emergency, questions, the new build's sentences
    answers(stack)
    print(
        f"\npartial build {partial} killed mid-write; {old} kept serving; "
        f"next ingest: {done.stdout.strip().splitlines()[-1]}"
    )


def test_unreadable_card_is_reported_and_the_old_index_serves(stack: Stack, tmp_path: Path) -> None:
    corpus = tmp_path / "cards"
    shutil.copytree(ROOT / "kb" / "cards", corpus)
    corpus.chmod(0o755)
    for path in corpus.iterdir():
        path.chmod(0o644)
    (corpus / "card-007.md").chmod(0o000)  # the containers run as uid 10001
    before = readyz(stack)
    names = collections(stack)
    res = ingest_clean(stack, corpus)
    text = output(res)
    assert res.returncode == 2, text
    assert "card-007.md" in text and "Permission denied" in text, text
    assert "nothing was ingested" in text and "Traceback" not in text, text
    after = readyz(stack)
    assert after["collection"] == before["collection"]
    # Nothing written but the refusal itself, which /readyz reports.
    assert collections(stack) - names <= {"cards-corpus-status"}, collections(stack) - names
    assert after["corpus"]["status"] == "refused", after
    assert any("card-007.md" in p for p in after["corpus"]["problems"]), after
    answers(stack)


def test_restart_with_more_than_1000_vectors_answers_the_same(
    stack: Stack, big_corpus: Path
) -> None:
    if readyz(stack)["chunks"] <= 1000:  # the ingest test failed before its rebuild
        res = ingest_clean(stack, big_corpus)
        assert res.returncode == 0, output(res)
        time.sleep(2.5)  # past POINTER_TTL_S: /readyz reports the new build consistently
    before = readyz(stack)
    assert before["chunks"] > 1000, before
    answers_before = answers(stack)
    env = {**stack.env, "SYNTH_CORPUS_DIR": str(big_corpus)}
    files = ["-f", "compose.yaml", "-f", SYNTH_OVERRIDE]

    def dc(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["docker", "compose", *files, *args],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False,
        )  # fmt: skip

    start = time.monotonic()
    down = dc("down")  # containers and network go; the named volume stays
    assert down.returncode == 0, down.stderr
    up = dc("up", "-d", "--wait", "api")
    assert up.returncode == 0, f"{up.stderr}\n{stack.logs()}"
    restart_s = time.monotonic() - start
    after = readyz(stack)
    assert after["collection"] == before["collection"], (before, after)
    assert after["built_at"] == before["built_at"]
    assert after["chunks"] == before["chunks"]
    ingest_log = dc("logs", "--no-color", "ingest").stdout
    assert "index is up to date" in ingest_log, ingest_log[-2000:]
    assert answers(stack) == answers_before
    print(f"\n{after['chunks']} vectors survived down + up ({restart_s:.0f} s); same answers")


# --- store write errors (second stack: Chroma data on a 64 MB tmpfs) ----------------------


def _clear_report(text: str) -> bool:
    """A failure an operator can act on: a logged reason, the old index named as
    untouched, no Python traceback."""
    return "Traceback" not in text and "untouched" in text


def test_store_permission_error_during_ingest_keeps_the_old_index(
    small_disk_stack: Stack,
) -> None:
    stack = small_disk_stack
    with logs_on_failure(stack):
        before = readyz(stack)
        names = collections(stack)
        stack.dc("exec", "-T", "-u", "root", "chroma", "chmod", "-R", "a-w", "/data")
        try:
            res = ingest_clean(stack)
        finally:
            stack.dc("exec", "-T", "-u", "root", "chroma", "chmod", "-R", "u+w", "/data")
        text = output(res)
        assert res.returncode != 0, text
        assert "readonly database" in text, text
        assert readyz(stack)["collection"] == before["collection"]
        assert collections(stack) == names, "the failed ingest left something behind"
        answers(stack)
    assert _clear_report(text), text[-3000:]
    assert "write permissions" in text


def test_disk_full_during_ingest_keeps_the_old_index(
    small_disk_stack: Stack, tmp_path: Path
) -> None:
    stack = small_disk_stack
    # ~28 MB of rows (and the example questions' ~10 MB) for ~25 MB free
    corpus = synthetic_corpus(tmp_path / "cards", 32)
    with logs_on_failure(stack):
        before = readyz(stack)
        names = collections(stack)
        assert len(split_banks(names)[1]) == 3, names  # the baked build's banks fit
        res = ingest_clean(stack, corpus)
        text = output(res)
        df = stack.dc("exec", "-T", "chroma", "df", "-h", "/data").stdout
        assert res.returncode != 0, f"{text}\n{df}"
        # It failed while writing the new build (after creating it), and removed it.
        assert "removing the partial build" in text, text
        assert readyz(stack)["collection"] == before["collection"]
        left = collections(stack)
        assert names <= left, f"stored collections lost: {sorted(names - left)}"
        # On a full disk Chroma may refuse to delete the partial build too (SQLite needs
        # room to record the deletion): what stays must be that build, named in the log,
        # and the next ingest that succeeds removes it (test_ingest_killed_halfway).
        partial = text.split("removing the partial build ", 1)[1].split(",", 1)[0]
        examples = "cards-examples-" + partial.removeprefix("cards-")
        assert left - names <= {partial, examples}, f"{sorted(left - names)}\n{text}"
        for stays in left - names:
            assert f"could not remove partial build {partial} ({stays})" in text, text
            assert "the next ingest that succeeds removes it" in text, text
        answers(stack)
        print(f"\n{df}")
    assert _clear_report(text), text[-3000:]
    assert "free disk space" in text
