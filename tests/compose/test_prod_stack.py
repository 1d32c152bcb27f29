"""The production stack (compose.yaml + deploy/compose.prod.yaml): HTTPS through the nginx
proxy with a test certificate, HTTP redirected, HSTS, only the proxy published, and the
client address the API sees (rate limit, access log) is each client's own, while a
forged X-Forwarded-For counts for nothing.

Client traffic other than the host's: containers of the API image on the stack's own
networks (the `edge` network for clients of the proxy, the default one for a client that
talks to the API directly); nothing leaves this machine.
Table of results: docs/reliability.md."""

from __future__ import annotations

import ipaddress
import json
import os
import random
import socket
import ssl
import subprocess
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.compose.conftest import HOST, Stack, _stack_env
from tests.service import free_port

pytestmark = [pytest.mark.compose, pytest.mark.slow]

RATE = 5  # RATE_LIMIT_PER_MINUTE for this stack: per client address and worker (2 workers)
QUESTION = {"question": "Posso tomar dipirona com febre?"}

# Runs in a container: `n` POSTs to `url`, each with the given extra headers; prints the
# container's own address and the status codes as JSON.
CLIENT = """
import json, socket, sys, httpx
url, n, headers = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
verify = "/tls/cert.pem" if url.startswith("https") else True
me = socket.gethostbyname(socket.gethostname())
codes = []
with httpx.Client(verify=verify, timeout=30) as c:
    for i in range(n):
        h = {k: v.replace("{i}", str(i)) for k, v in headers.items()}
        codes.append(c.post(url, json={"question": "Posso tomar dipirona?"}, headers=h).status_code)
print(json.dumps({"address": me, "codes": codes}))
"""


def _edge_subnet() -> ipaddress.IPv4Network:
    """A /28 for the edge network that no Docker network on this host uses yet, outside
    Docker's default address pools (172.17-172.31.0.0/16, 192.168.0.0/16). Inside them, a
    network Docker allocates later can take a /16 holding it: after `down -v`, restore.sh
    recreated the default network on 172.31.0.0/16 and the edge network no longer fit."""
    used = []
    for net_id in subprocess.run(
        ["docker", "network", "ls", "-q"], capture_output=True, text=True, check=True
    ).stdout.split():
        out = subprocess.run(
            ["docker", "network", "inspect", "-f", "{{range .IPAM.Config}}{{.Subnet}} {{end}}",
             net_id], capture_output=True, text=True, check=True,
        ).stdout.split()  # fmt: skip
        used += [ipaddress.ip_network(s) for s in out if ":" not in s]
    pool = list(ipaddress.ip_network("10.213.0.0/16").subnets(new_prefix=28))
    random.shuffle(pool)
    for net in pool:
        if not any(net.overlaps(u) for u in used):
            return net
    raise RuntimeError("no free /28 in 10.213.0.0/16 for the edge network")


def _test_certificate(directory: Path) -> Path:
    """A self-made certificate for localhost, 127.0.0.1 and the proxy's service name, in
    the layout an operator mounts (cert.pem, key.pem), readable by the proxy's uid."""
    directory.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
         "-nodes", "-days", "2", "-subj", "/CN=cartoes-test",
         "-addext", "subjectAltName=DNS:localhost,DNS:proxy,IP:127.0.0.1",
         "-keyout", str(directory / "key.pem"), "-out", str(directory / "cert.pem")],
        check=True, capture_output=True,
    )  # fmt: skip
    directory.chmod(0o755)
    for f in directory.iterdir():
        f.chmod(0o644)  # a throwaway key; an operator would chgrp 10001 and chmod 640
    return directory


def proxy_env(tmp_path_factory: pytest.TempPathFactory, https: int, http: int) -> dict[str, str]:
    """What a stack with the proxy needs besides _stack_env: a test certificate, both ports
    on 127.0.0.1, and an edge network no other Docker network on this host overlaps."""
    subnet = _edge_subnet()
    return {
        "TLS_DIR": str(_test_certificate(tmp_path_factory.mktemp("tls") / "tls")),
        "HTTPS_BIND": HOST,
        "HTTPS_PORT": str(https),
        "HTTP_BIND": HOST,
        "HTTP_PORT": str(http),
        "EDGE_SUBNET": str(subnet),
        "EDGE_IP_RANGE": str(list(subnet.subnets(new_prefix=29))[1]),
        "PROXY_IP": str(subnet.network_address + 2),
    }


class ProdStack(Stack):
    def __init__(self, project: str, env: dict[str, str], https: int, http: int, api: int):
        super().__init__(None, project, api, env)  # type: ignore[arg-type]
        self.https_url = f"https://{HOST}:{https}"
        self.http_url = f"http://{HOST}:{http}"
        self.cert = str(Path(env["TLS_DIR"]) / "cert.pem")

    def https(self, timeout: float = 30) -> httpx.Client:
        verify = ssl.create_default_context(cafile=self.cert)
        return httpx.Client(base_url=self.https_url, verify=verify, timeout=timeout)

    def client_container(
        self, network: str, url: str, n: int, headers: dict, ip: str | None = None
    ) -> dict:
        """CLIENT in a new container of the api image on one of the stack's networks."""
        prefix, tag = self.env.get("IMAGE_PREFIX", "cartoes"), self.env.get("IMAGE_TAG", "latest")
        image = f"{prefix}-api:{tag}"
        fixed = ["--ip", ip] if ip else []
        res = subprocess.run(
            ["docker", "run", "--rm", "--network", f"{self.project}_{network}", *fixed,
             "-v", f"{self.env['TLS_DIR']}:/tls:ro", "--entrypoint", "python", image,
             "-c", CLIENT, url, str(n), json.dumps(headers)],
            capture_output=True, text=True, timeout=180, check=False,
        )  # fmt: skip
        assert res.returncode == 0, res.stderr[-2000:]
        return json.loads(res.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def prod_stack(built_images: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ProdStack]:
    project = f"cartoes-prod-{uuid.uuid4().hex[:8]}"
    https, http, api = free_port(), free_port(), free_port()
    env = _stack_env(tmp_path_factory, project, api)
    env.update(
        proxy_env(tmp_path_factory, https, http),
        COMPOSE_FILE="compose.yaml:deploy/compose.prod.yaml",
        RATE_LIMIT_PER_MINUTE=str(RATE),
    )
    stack = ProdStack(project, env, https, http, api)
    try:
        start = time.monotonic()
        up = stack.dc("up", "-d", "--wait", "--no-build", "proxy", timeout=600, check=False)
        if up.returncode != 0:
            pytest.fail(f"`up --wait proxy` failed:\n{up.stderr[-3000:]}\n{stack.logs()}")
        print(f"\nproduction stack {project} up in {time.monotonic() - start:.0f} s")
        yield stack
    finally:
        stack.dc("--profile", "maintenance", "down", "--volumes", "--remove-orphans",
                 check=False, timeout=180)  # fmt: skip


def test_https_answers_with_a_cited_answer_and_hsts(prod_stack: ProdStack) -> None:
    with prod_stack.https() as c:
        res = c.post("/api/ask", json=QUESTION)
        page = c.get("/")
    assert res.status_code == 200, res.text
    body = res.json()
    assert body["citations"] and body["answer"].strip(), body
    assert all(f"[cite:{cit['id']}]" in body["answer"] for cit in body["citations"])
    assert res.headers["strict-transport-security"].startswith("max-age=31536000")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert "content-security-policy" in page.headers  # the app's own headers pass through
    assert "server" not in res.headers or "nginx/" not in res.headers["server"]  # no version
    # The certificate served is the mounted one.
    served = ssl.get_server_certificate((HOST, int(prod_stack.https_url.rsplit(":", 1)[1])))
    assert served.strip() == Path(prod_stack.cert).read_text().strip()


def test_plain_http_redirects_to_https(prod_stack: ProdStack) -> None:
    with httpx.Client(timeout=10) as c:
        res = c.get(f"{prod_stack.http_url}/api/cards/card-001?x=1")
        post = c.post(f"{prod_stack.http_url}/api/ask", json=QUESTION)
    assert res.status_code == 301, res.text
    assert res.headers["location"] == f"{prod_stack.https_url}/api/cards/card-001?x=1"
    assert post.status_code == 301  # never answered over plain HTTP
    assert "strict-transport-security" not in res.headers  # HSTS only over HTTPS


def test_only_the_proxy_publishes_ports(prod_stack: ProdStack) -> None:
    published = {}
    for cid in prod_stack.dc("ps", "-a", "-q").stdout.split():
        info = json.loads(
            subprocess.run(["docker", "inspect", cid], capture_output=True, text=True).stdout
        )[0]
        service = info["Config"]["Labels"]["com.docker.compose.service"]
        ports = info["NetworkSettings"]["Ports"] or {}
        published[service] = sorted(
            f"{b['HostIp']}:{b['HostPort']}" for bs in ports.values() if bs for b in bs
        )
    assert set(published) >= {"api", "chroma", "proxy"}, published
    assert {s for s, p in published.items() if p} == {"proxy"}, published
    # The port the base compose file would publish the API on is closed.
    with socket.socket() as s, pytest.raises(OSError):
        s.settimeout(3)
        s.connect((HOST, prod_stack.port))


def test_each_client_gets_its_own_rate_limit_bucket(prod_stack: ProdStack) -> None:
    url = "https://proxy:8443/api/search"
    edge = ipaddress.ip_network(prod_stack.env["EDGE_SUBNET"])
    one, two = str(edge.network_address + 13), str(edge.network_address + 14)
    # Client one claims a new address in X-Forwarded-For on every request: the proxy
    # overwrites the header, so all 16 requests share client one's bucket.
    first = prod_stack.client_container(
        "edge", url, 16, {"X-Forwarded-For": "203.0.113.{i}"}, ip=one
    )
    second = prod_stack.client_container("edge", url, 4, {}, ip=two)
    a, b = Counter(first["codes"]), Counter(second["codes"])
    assert (first["address"], second["address"]) == (one, two)
    assert set(first["codes"]) <= {200, 429}, first
    assert a[200] <= 2 * RATE and a[429] >= 16 - 2 * RATE, first
    # Another client address: its own bucket, served at once.
    assert b == Counter({200: 4}), second
    logs = prod_stack.dc("logs", "--no-color", "api").stdout
    for client in (first, second):
        assert f"{client['address']}:" in logs, f"{client['address']} not in the access log"
    assert "203.0.113." not in logs, "a forged X-Forwarded-For reached the access log"
    print(f"\nclient {one}: {dict(a)}; client {two}: {dict(b)}")


def test_forged_forwarded_for_sent_straight_to_the_api_is_ignored(prod_stack: ProdStack) -> None:
    # From the stack's default network (where chroma lives), straight to the api, each
    # request claiming another client address: all of them share one bucket.
    res = prod_stack.client_container(
        "default", "http://api:8000/api/search", 16, {"X-Forwarded-For": "198.51.100.{i}"}
    )
    codes = Counter(res["codes"])
    assert codes[429] >= 16 - 2 * RATE, res
    logs = prod_stack.dc("logs", "--no-color", "api").stdout
    assert f"{res['address']}:" in logs
    assert "198.51.100." not in logs, "the API believed a forged X-Forwarded-For"


def test_self_signed_certificate_made_at_first_start(built_images: None, tmp_path: Path) -> None:
    # No certificate mounted: the proxy makes one for TLS_HOSTNAME and serves it.
    port = free_port()
    prefix, tag = os.environ.get("IMAGE_PREFIX", "cartoes"), os.environ.get("IMAGE_TAG", "latest")
    image = f"{prefix}-proxy:{tag}"
    name = f"cartoes-selfsigned-{uuid.uuid4().hex[:8]}"
    run = subprocess.run(
        ["docker", "run", "-d", "--rm", "--name", name, "--read-only",
         "--tmpfs", "/tmp:uid=10001,gid=10001", "--cap-drop", "ALL",
         "-e", "TLS_HOSTNAME=cartoes.example", "-p", f"{HOST}:{port}:8443", image],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    try:
        end = time.monotonic() + 30
        while True:
            try:
                pem = ssl.get_server_certificate((HOST, port), timeout=3)
                break
            except OSError:
                if time.monotonic() > end:
                    raise
                time.sleep(0.5)
        # No api to resolve here: nginx gives up on the name after resolver_timeout (5 s).
        with httpx.Client(verify=False, timeout=30) as c:
            res = c.get(f"https://{HOST}:{port}/readyz")
        logs = subprocess.run(["docker", "logs", name], capture_output=True, text=True).stderr
    finally:
        subprocess.run(["docker", "rm", "-f", name], capture_output=True, timeout=60)
    cert = tmp_path / "served.pem"
    cert.write_text(pem)
    text = subprocess.run(
        ["openssl", "x509", "-in", str(cert), "-noout", "-subject", "-ext", "subjectAltName"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "CN = cartoes.example" in text and "DNS:cartoes.example" in text, text
    assert "self-signed" in logs and "trials only" in logs, logs
    # No api behind this lone proxy: a JSON 503, not nginx's HTML error page.
    assert res.status_code == 503 and res.json()["error"]["code"] == "api_unavailable"
    assert res.headers["strict-transport-security"].startswith("max-age=")
