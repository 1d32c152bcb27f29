"""Two api replicas behind the proxy, feedback in one PostgreSQL (compose.yaml +
deploy/compose.prod.yaml + deploy/compose.scale.yaml, issue 28), on real containers:

- both replicas serve, and the answers and ratings of both land in the one database, where
  the gaps report counts them all;
- a replica killed under load (SIGKILL of its init from the host, a crash) fails no
  request: the proxy retries the ones in flight on the other replica; the killed one is
  restarted by its restart policy and gets traffic again by itself. SCALE_KILL_RUNS kills
  (default 2, one per replica; the figure in deploy/SCALING.md is from 30);
- `ingest-clean` under load fails no request, and both replicas serve the new build;
- backup, `down -v`, restore gives the same answers and the same feedback rows
  (pg_dump/pg_restore in deploy/backup.sh and deploy/restore.sh).

The schema migration of a database made by the previous version is tested on SQLite and
PostgreSQL in tests/unit/feedback/test_migrations.py. Results: deploy/SCALING.md."""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.core.text import fold
from tests.compose.conftest import _stack_env
from tests.compose.test_prod_stack import ProdStack, proxy_env
from tests.polling import wait_until
from tests.service import free_port

pytestmark = [pytest.mark.compose, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
ADMIN_KEY = f"admin-{secrets.token_hex(12)}"
ADMIN = {"x-admin-key": ADMIN_KEY}
QUESTIONS = [
    "Posso tomar dipirona com febre?",
    "Quanto paracetamol posso tomar por dia?",
    "devo tomar a levotiroxina em jejum?",
]
REFUSED = "qual a capital da Austrália?"
KILL_RUNS = int(os.environ.get("SCALE_KILL_RUNS", "2"))
DEADLINE_S = 15.0  # no request may take longer: REQUEST_DEADLINE_S (10 s) plus a retry
FILES = "compose.yaml:deploy/compose.prod.yaml:deploy/compose.scale.yaml"


class ScaleStack(ProdStack):
    def replicas(self) -> list[str]:
        """Container ids of the api replicas, in the order of their replica number."""
        ids = self.dc("ps", "-a", "-q", "api").stdout.split()
        number = {
            cid: int(self._inspect(cid)["Config"]["Labels"]["com.docker.compose.container-number"])
            for cid in ids
        }
        return sorted(ids, key=number.__getitem__)

    def _inspect(self, cid: str) -> dict[str, Any]:
        out = subprocess.run(
            ["docker", "inspect", cid], capture_output=True, text=True, check=True
        ).stdout
        info: dict[str, Any] = json.loads(out)[0]
        return info

    def address(self, cid: str) -> str:
        """The replica's address on the edge network: what the proxy's log names."""
        networks = self._inspect(cid)["NetworkSettings"]["Networks"]
        return str(networks[f"{self.project}_edge"]["IPAddress"])

    def served_by(self, since: str) -> Counter[str]:
        """POST /api/ask lines of the proxy's access log since `since`, by the replica that
        answered (the last address of a retried request)."""
        logs = self.dc("logs", "--no-color", "--no-log-prefix", "--since", since, "proxy")
        counts: Counter[str] = Counter()
        for line in logs.stdout.splitlines():
            if '"POST /api/ask ' in line and "upstream=" in line:
                last = line.rsplit("upstream=", 1)[1].split(",")[-1].strip()
                counts[last.rsplit(":", 1)[0]] += 1
        return counts

    def psql(self, sql: str) -> str:
        res = self.dc(
            "exec", "-T", "postgres", "psql", "-h", "/tmp", "-U", "cartoes", "-d", "feedback",
            "-v", "ON_ERROR_STOP=1", "-tAc", sql, timeout=60,
        )  # fmt: skip
        return res.stdout.strip()

    def wait_recorded(self, answer_ids: list[str], what: str) -> None:
        """Polls until every answer id has its record in postgres (records are written by
        a background writer per worker, just after the response)."""
        quoted = ",".join(f"'{i}'" for i in answer_ids)
        wait_until(
            lambda: (
                self.psql(f"select count(*) from answers where answer_id in ({quoted})")
                == str(len(answer_ids))
            ),
            60,
            interval=0.5,
            what=what,
        )

    def readyz_of(self, cid: str) -> dict[str, Any]:
        code = (
            "import json, urllib.request; print(urllib.request.urlopen("
            "'http://127.0.0.1:8000/readyz', timeout=5).read().decode())"
        )
        res = subprocess.run(
            ["docker", "exec", cid, "python", "-c", code],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        if res.returncode != 0:
            return {"ready": False, "error": res.stderr[-300:]}
        body: dict[str, Any] = json.loads(res.stdout)
        return body

    def ask(self, question: str) -> dict[str, Any]:
        with self.https() as c:
            res = c.post("/api/ask", json={"question": question})
        assert res.status_code == 200, res.text
        body: dict[str, Any] = res.json()
        return body


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class Outcome:
    started: float
    ended: float
    status: int | None
    cited: bool
    error: str | None
    resent: bool  # sent again after an idle keep-alive connection was closed (below)


EMPTY_CLOSE = "Server disconnected without sending a response"


class Traffic:
    """`threads` clients asking through the proxy in a loop until stop(), on keep-alive
    connections. A request that meets a connection the proxy closed before any byte of a
    response is sent once more, on a new connection, as browsers do with a reused HTTP/1.1
    connection: nginx closes its idle keep-alive connections when it reloads (each time a
    replica leaves or joins the group), and a request sent at that instant was never read.
    Such resends are counted and reported; any other error, or a second one, is a failure."""

    def __init__(self, stack: ScaleStack, threads: int):
        self.stack, self.threads = stack, threads
        self.outcomes: list[Outcome] = []
        self._stop = threading.Event()
        self._workers: list[threading.Thread] = []

    def _ask(self, c: httpx.Client, question: str) -> tuple[int | None, bool, str | None, bool]:
        resent = False
        while True:
            try:
                res = c.post("/api/ask", json={"question": question})
                cited = res.status_code == 200 and bool(res.json().get("citations"))
                return res.status_code, cited, None, resent
            except httpx.RemoteProtocolError as exc:
                if resent or EMPTY_CLOSE not in str(exc):
                    return None, False, repr(exc), resent
                resent = True
            except (httpx.HTTPError, ValueError) as exc:
                return None, False, repr(exc), resent

    def _loop(self, n: int) -> None:
        deadline = time.monotonic() + 900  # bounded even if something hangs
        with self.stack.https(timeout=60) as c:
            i = n
            while not self._stop.is_set() and time.monotonic() < deadline:
                started = time.monotonic()
                status, cited, error, resent = self._ask(c, QUESTIONS[i % len(QUESTIONS)])
                self.outcomes.append(
                    Outcome(started, time.monotonic(), status, cited, error, resent)
                )
                i += 1

    def start(self) -> Traffic:
        for n in range(self.threads):
            worker = threading.Thread(target=self._loop, args=(n,), daemon=True)
            worker.start()
            self._workers.append(worker)
        return self

    def stop(self) -> list[Outcome]:
        self._stop.set()
        for worker in self._workers:
            worker.join(timeout=120)
        return list(self.outcomes)


@pytest.fixture(scope="module")
def scale_stack(
    built_images: None, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ScaleStack]:
    project = f"cartoes-scale-{uuid.uuid4().hex[:8]}"
    https, http, api = free_port(), free_port(), free_port()
    env = _stack_env(tmp_path_factory, project, api, {"ADMIN_API_KEY": ADMIN_KEY})
    env.update(
        proxy_env(tmp_path_factory, https, http),
        COMPOSE_FILE=FILES,
        COMPOSE_FILES=" ".join(f"-f {f}" for f in FILES.split(":")),  # deploy/backup.sh's
        FEEDBACK_DB_PASSWORD=secrets.token_hex(16),
        RATE_LIMIT_PER_MINUTE="0",  # the load of these tests comes from one address
        UPSTREAM_CHECK_S="1",
    )
    stack = ScaleStack(project, env, https, http, api)
    try:
        start = time.monotonic()
        up = stack.dc("up", "-d", "--wait", "--no-build", "proxy", timeout=900, check=False)
        if up.returncode != 0:
            pytest.fail(f"`up --wait proxy` failed:\n{up.stderr[-3000:]}\n{stack.logs()}")
        assert len(stack.replicas()) == 2, stack.dc("ps", "-a").stdout
        print(f"\nscale stack {project} (2 api replicas) up in {time.monotonic() - start:.0f} s")
        yield stack
    finally:
        stack.dc("--profile", "maintenance", "down", "--volumes", "--remove-orphans",
                 check=False, timeout=180)  # fmt: skip


def _both_serving(stack: ScaleStack, since: str) -> Counter[str]:
    """Asks until the proxy's log shows both replicas answering since `since`."""
    addresses = {stack.address(cid) for cid in stack.replicas()}

    def both() -> Counter[str] | None:
        stack.ask(QUESTIONS[0])
        served = stack.served_by(since)
        return served if addresses <= set(served) else None

    return wait_until(both, 120, interval=0.2, what="both replicas answering")


def test_answers_and_ratings_of_both_replicas_land_in_one_database(
    scale_stack: ScaleStack,
) -> None:
    def refused_count() -> int:
        with scale_stack.https(timeout=120) as c:
            report = c.get("/api/admin/gaps", headers=ADMIN)
        assert report.status_code == 200, report.text
        for cluster in report.json()["clusters"]:
            if any("capital da australia" in fold(q["question"]) for q in cluster["questions"]):
                return int(cluster["refused"])
        return 0

    refused_before = refused_count()
    since = _now()
    answers = [scale_stack.ask(QUESTIONS[i % len(QUESTIONS)]) for i in range(12)]
    refusals = [scale_stack.ask(REFUSED) for _ in range(6)]
    assert all(a["citations"] and not a["refused"] for a in answers), answers
    assert all(r["refused"] for r in refusals), refusals
    served = scale_stack.served_by(since)
    addresses = {scale_stack.address(cid) for cid in scale_stack.replicas()}
    assert set(served) == addresses and min(served.values()) >= 5, (served, addresses)

    ids = [a["answer_id"] for a in answers + refusals]
    with scale_stack.https() as c:
        for n, answer_id in enumerate(ids):
            res = c.post("/api/feedback", json={"answer_id": answer_id, "helpful": n % 2 == 0})
            assert res.status_code == 201, res.text
    scale_stack.wait_recorded(ids, "every answer recorded in postgres")
    quoted = ",".join(f"'{i}'" for i in ids)
    rated = scale_stack.psql(
        f"select count(*), sum(case when helpful then 1 else 0 end) from feedback "
        f"where answer_id in ({quoted})"
    )
    assert rated == f"{len(ids)}|{(len(ids) + 1) // 2}", rated
    wait_until(
        lambda: refused_count() == refused_before + len(refusals),
        60,
        interval=0.5,
        what=f"the gaps report counting all {len(refusals)} refusals",
    )
    print(f"\nserved by {dict(served)}; {len(ids)} answers and ratings in one database")


def _kill_one(stack: ScaleStack, victim: str, run: int) -> str:
    """SIGKILLs the replica's init from the host, under load; waits until it is back and
    answering through the proxy. Returns a line for the report."""
    address = stack.address(victim)
    before = stack._inspect(victim)
    traffic = Traffic(stack, threads=6).start()
    try:
        wait_until(lambda: sum(o.cited for o in traffic.outcomes) >= 6, 60, what="traffic")
        t_kill = time.monotonic()
        os.kill(int(before["State"]["Pid"]), signal.SIGKILL)
        time.sleep(3.0)  # the in-flight requests of the victim are retried meanwhile

        def back() -> bool:
            info = stack._inspect(victim)
            return (
                info["RestartCount"] > before["RestartCount"]
                and info["State"].get("Health", {}).get("Status") == "healthy"
            )

        wait_until(back, 240, interval=0.5, what=f"run {run}: the killed replica healthy again")
        t_back = time.monotonic()
        since = _now()
        wait_until(
            lambda: stack.served_by(since)[address] >= 1,
            60,
            interval=0.5,
            what=f"run {run}: the proxy sending traffic to {address} again",
        )
        t_rejoined = time.monotonic()
    finally:
        outcomes = traffic.stop()
    failed = [o for o in outcomes if o.status != 200 or not o.cited]
    slow = [round(o.ended - o.started, 1) for o in outcomes if o.ended - o.started > DEADLINE_S]
    assert failed == [], f"run {run}: {len(failed)} failed of {len(outcomes)}: {failed[:5]}"
    assert slow == [], f"run {run}: requests over {DEADLINE_S} s: {slow}"
    during = [o for o in outcomes if t_kill < o.started < t_back]
    assert len(during) >= 5, f"run {run}: only {len(during)} requests while the replica was down"
    resent = sum(o.resent for o in outcomes)
    return (
        f"run {run}: {len(outcomes)} requests, 0 failed ({resent} resent after a reload "
        f"closed an idle connection), slowest "
        f"{max(o.ended - o.started for o in outcomes):.2f} s; back {t_back - t_kill:.0f} s, "
        f"serving {t_rejoined - t_kill:.0f} s after the kill"
    )


def test_a_replica_killed_under_load_loses_no_request_and_rejoins(
    scale_stack: ScaleStack,
) -> None:
    _both_serving(scale_stack, _now())
    report = []
    for run in range(1, KILL_RUNS + 1):
        replicas = scale_stack.replicas()
        report.append(_kill_one(scale_stack, replicas[(run - 1) % len(replicas)], run))
        print(report[-1])
    print("\n" + "\n".join(report))


def test_ingest_clean_under_load_switches_both_replicas(scale_stack: ScaleStack) -> None:
    _both_serving(scale_stack, _now())
    replicas = scale_stack.replicas()
    before = {scale_stack.readyz_of(cid)["collection"] for cid in replicas}
    assert len(before) == 1, before
    traffic = Traffic(scale_stack, threads=4).start()
    try:
        wait_until(lambda: any(o.cited for o in traffic.outcomes), 60, what="traffic")
        run = scale_stack.dc(
            "--profile", "maintenance", "run", "--rm", "ingest-clean", timeout=600, check=False
        )
        assert run.returncode == 0, f"ingest-clean exited {run.returncode}:\n{run.stderr[-3000:]}"

        def switched() -> set[str] | None:
            now = {scale_stack.readyz_of(cid).get("collection") for cid in replicas}
            return now if len(now) == 1 and now != before else None

        after = wait_until(switched, 120, interval=0.5, what="both replicas on the new build")
        time.sleep(1.0)  # a few requests on the new build
    finally:
        outcomes = traffic.stop()
    failed = [o for o in outcomes if o.status != 200 or not o.cited]
    assert len(outcomes) >= 5 and failed == [], (len(outcomes), failed[:5])
    resent = sum(o.resent for o in outcomes)
    print(
        f"\n{len(outcomes)} requests during ingest-clean, 0 failed ({resent} resent); "
        f"{before} -> {after}"
    )


def test_backup_down_restore_keeps_the_answers_and_the_feedback_rows(
    scale_stack: ScaleStack, tmp_path: Path
) -> None:
    asked = [scale_stack.ask(q) for q in QUESTIONS]
    with scale_stack.https() as c:
        res = c.post("/api/feedback", json={"answer_id": asked[0]["answer_id"], "helpful": False})
        assert res.status_code == 201, res.text
    scale_stack.wait_recorded([a["answer_id"] for a in asked], "the answers recorded")
    rows_sql = (
        "select json_agg(r order by r.answer_id) from (select a.answer_id, a.question, "
        "a.outcome, a.cited, f.helpful, f.reason from answers a left join feedback f "
        "using (answer_id)) r"
    )
    rows_before = scale_stack.psql(rows_sql)

    def run(script: str, *args: str) -> str:
        res = subprocess.run(
            ["bash", str(ROOT / "deploy" / script), *args], cwd=ROOT, env=scale_stack.env,
            capture_output=True, text=True, timeout=600, check=False,
        )  # fmt: skip
        assert res.returncode == 0, f"{script} failed:\n{res.stdout[-2000:]}\n{res.stderr[-3000:]}"
        return res.stdout

    out = run("backup.sh", str(tmp_path / "backups"))
    assert "feedback.pgdump" in out, out
    (backup,) = (tmp_path / "backups").iterdir()
    scale_stack.dc("--profile", "maintenance", "down", "--volumes", timeout=300)
    out = run("restore.sh", str(backup))
    assert "replacing the feedback database" in out, out
    up = scale_stack.dc("up", "-d", "--wait", "--no-build", "proxy", timeout=900, check=False)
    assert up.returncode == 0, f"{up.stderr[-3000:]}\n{scale_stack.logs()}"
    assert len(scale_stack.replicas()) == 2

    assert scale_stack.psql(rows_sql) == rows_before
    again = [scale_stack.ask(q) for q in QUESTIONS]
    assert [a["answer"] for a in again] == [a["answer"] for a in asked]
    assert [a["citations"] for a in again] == [a["citations"] for a in asked]
    print(f"\nrestored {backup.name}: the same {len(asked)} answers, the same feedback rows")
