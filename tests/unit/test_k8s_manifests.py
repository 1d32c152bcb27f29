"""The Kubernetes manifests of deploy/k8s (issue 28), without a cluster: every object is
valid against the API schemas that kubernetes-validate bundles for K8S_VERSION (strict:
an unknown or misspelt field fails), and the manifests say what compose.yaml says: the
same images and commands, the api's probes on its port, the Services, the Ingress."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "deploy" / "k8s"
K8S_VERSION = "1.34.0"
NAMESPACE = "cartoes"
MAINTENANCE = {"job-ingest-clean.yaml", "job-feedback-migrate.yaml"}  # kubectl create -f


def documents(path: Path) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d is not None]


def manifest_files() -> list[Path]:
    return sorted(p for p in K8S.glob("*.yaml") if p.name != "kustomization.yaml")


def objects() -> dict[tuple[str, str], dict[str, Any]]:
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for path in manifest_files():
        for doc in documents(path):
            key = (doc["kind"], doc["metadata"]["name"])
            assert key not in found, f"{key} twice"
            found[key] = doc
    return found


def pod_spec(obj: dict[str, Any]) -> dict[str, Any]:
    spec: dict[str, Any] = obj["spec"]["template"]["spec"]
    return spec


def container(obj: dict[str, Any], name: str | None = None) -> dict[str, Any]:
    containers: list[dict[str, Any]] = pod_spec(obj)["containers"]
    return containers[0] if name is None else next(c for c in containers if c["name"] == name)


def expand(value: str) -> str:
    """${VAR:-default} as compose reads it with VAR unset."""
    return re.sub(r"\$\{[A-Z_]+:-([^}]*)\}", r"\1", value)


def compose() -> dict[str, Any]:
    services: dict[str, Any] = yaml.safe_load((ROOT / "compose.yaml").read_text())["services"]
    return services


def config_map() -> dict[str, str]:
    data: dict[str, str] = objects()[("ConfigMap", "cartoes-config")]["data"]
    return data


def port_of(obj: dict[str, Any], port: int | str) -> int:
    """A probe's or a Service's target port, a name resolved in the pod's containers."""
    if isinstance(port, int):
        return port
    for c in pod_spec(obj)["containers"]:
        for p in c.get("ports", []):
            if p.get("name") == port:
                return int(p["containerPort"])
    raise AssertionError(f"no container port named {port!r} in {obj['metadata']['name']}")


@pytest.mark.parametrize("path", manifest_files(), ids=lambda p: p.name)
def test_every_object_is_valid_for_the_pinned_kubernetes_version(path: Path) -> None:
    docs = documents(path)
    assert docs, f"{path.name} holds no object"
    errors = []
    for doc in docs:
        where = f"{path.name} {doc['kind']}/{doc['metadata']['name']}"
        try:
            checked = kubernetes_validate.validate(doc, K8S_VERSION, strict=True)
        except kubernetes_validate.ValidationError as exc:  # jsonschema's, copied
            at = "/".join(str(p) for p in exc.absolute_path)
            errors.append(f"{where} at {at}: {exc.message}")
            continue
        assert checked == "1.34", where
        if doc["kind"] != "Namespace":
            assert doc["metadata"]["namespace"] == NAMESPACE, where  # kubectl create -f
        errors.extend(f"{where}: {q}" for q in bad_quantities(doc))
    assert not errors, "\n".join(errors)


QUANTITY = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+|[KMGTPE]i|[mkMGTPE])?$")


def bad_quantities(node: Any, path: str = "") -> list[str]:
    """Resource amounts the API server would refuse: the bundled schemas take any string
    for a quantity (`storage: five` passes them)."""
    found = []
    if isinstance(node, dict):
        for key, value in node.items():
            here = f"{path}/{key}"
            if key in ("requests", "limits") and isinstance(value, dict):
                found += [
                    f"{here}/{k}: {v!r} is not a quantity"
                    for k, v in value.items()
                    if not QUANTITY.match(str(v))
                ]
            elif key == "sizeLimit" and not QUANTITY.match(str(value)):
                found.append(f"{here}: {value!r} is not a quantity")
            else:
                found += bad_quantities(value, here)
    elif isinstance(node, list):
        for i, item in enumerate(node):
            found += bad_quantities(item, f"{path}/{i}")
    return found


def test_the_validator_catches_a_broken_manifest() -> None:
    """The schemas really are applied: a misspelt field and a wrong type both fail."""
    api = objects()[("Deployment", "api")]
    broken = yaml.safe_load(yaml.safe_dump(api))
    container(broken)["readinessProbe"]["httpGet"]["paht"] = "/readyz"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, K8S_VERSION, strict=True)
    broken = yaml.safe_load(yaml.safe_dump(api))
    broken["spec"]["replicas"] = "two"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, K8S_VERSION, strict=True)


def test_kustomization_lists_every_manifest_but_the_maintenance_jobs() -> None:
    kustomization = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    assert kustomization["kind"] == "Kustomization" and kustomization["namespace"] == NAMESPACE
    listed = set(kustomization["resources"])
    assert all((K8S / name).is_file() for name in listed)
    assert listed | MAINTENANCE == {p.name for p in manifest_files()}
    assert not listed & MAINTENANCE
    images = {i["name"] for i in kustomization["images"]}
    assert images == {"cartoes-api", "cartoes-ingest", "cartoes-chroma"}


def test_images_are_the_ones_compose_builds() -> None:
    built = {name: expand(s["image"]) for name, s in compose().items()}
    found = objects()
    assert container(found[("Deployment", "api")])["image"] == built["api"]
    assert container(found[("StatefulSet", "chroma")])["image"] == built["chroma"]
    for job in ("ingest", "ingest-clean"):
        assert container(found[("Job", job)])["image"] == built[job]
    assert container(found[("Job", "feedback-migrate")])["image"] == built["api"]
    assert built["api"] == "cartoes-api:latest"  # the names kustomization.yaml retags


def test_the_jobs_run_the_commands_of_compose() -> None:
    found = objects()
    services = compose()
    assert container(found[("Job", "ingest")], "ingest")["command"] == services["ingest"]["command"]
    assert (
        container(found[("Job", "ingest-clean")], "ingest")["command"]
        == services["ingest-clean"]["command"]
        == ["python", "-m", "ingest", "--clean"]
    )
    migrate = container(found[("Job", "feedback-migrate")])
    assert migrate["command"] == ["python", "-m", "app.feedback.migrate", "upgrade"]
    for name in ("ingest", "ingest-clean", "feedback-migrate"):
        job = found[("Job", name)]
        assert pod_spec(job)["restartPolicy"] == "Never"


def test_the_api_probes_readyz_and_healthz_on_its_port() -> None:
    api = objects()[("Deployment", "api")]
    c = container(api)
    bind_port = int(config_map()["GUNICORN_BIND"].rsplit(":", 1)[1])
    assert bind_port == int(expand(compose()["api"]["ports"][0]).rsplit(":", 1)[1]) == 8000
    for probe, path in (
        ("readinessProbe", "/readyz"),
        ("livenessProbe", "/healthz"),
        ("startupProbe", "/healthz"),
    ):
        get = c[probe]["httpGet"]
        assert get["path"] == path, probe
        assert port_of(api, get["port"]) == bind_port, probe
    # compose: start_period 150 s before failures count; the startup probe allows as long
    startup = c["startupProbe"]
    assert startup["periodSeconds"] * startup["failureThreshold"] >= 150
    limits = c["resources"]["limits"]
    compose_limits = compose()["api"]["deploy"]["resources"]["limits"]
    assert limits["cpu"] == str(int(float(compose_limits["cpus"])))
    assert limits["memory"] == compose_limits["memory"].replace("g", "Gi")


def test_the_settings_are_those_compose_fixes() -> None:
    data = config_map()
    app_env = compose()["ingest"]["environment"]
    for key in ("CHROMA_MODE", "CHROMA_HOST", "CHROMA_PORT", "CORPUS_DIR"):
        assert data[key] == str(app_env[key]), key
    found = objects()
    for kind, name in (("Deployment", "api"), ("Job", "ingest"), ("Job", "ingest-clean")):
        refs = [e["configMapRef"]["name"] for e in container(found[(kind, name)])["envFrom"]]
        assert refs == ["cartoes-config"], name


def test_the_services_publish_the_ports_the_pods_listen_on() -> None:
    found = objects()
    data = config_map()
    for name, kind, port in (
        ("api", "Deployment", int(data["GUNICORN_BIND"].rsplit(":", 1)[1])),
        ("chroma", "StatefulSet", int(data["CHROMA_PORT"])),
        ("postgres", "StatefulSet", 5432),
    ):
        service = found[("Service", name)]
        workload = found[(kind, name)]
        labels = workload["spec"]["template"]["metadata"]["labels"]
        assert service["spec"]["selector"].items() <= labels.items(), name
        assert workload["spec"]["selector"]["matchLabels"] == service["spec"]["selector"]
        (published,) = service["spec"]["ports"]
        assert published["port"] == port, name
        assert port_of(workload, published["targetPort"]) == port, name
    assert data["CHROMA_HOST"] == "chroma"


def test_chroma_and_postgres_are_statefulsets_marked_replaceable() -> None:
    found = objects()
    for name, mount in (("chroma", "/data"), ("postgres", "/var/lib/postgresql/data")):
        sts = found[("StatefulSet", name)]
        assert sts["spec"]["serviceName"] == name and sts["spec"]["replicas"] == 1
        assert "replaceable-by" in " ".join(sts["metadata"]["annotations"]), name
        (claim,) = sts["spec"]["volumeClaimTemplates"]
        mounts = {m["name"]: m["mountPath"] for m in container(sts)["volumeMounts"]}
        assert mounts[claim["metadata"]["name"]] == mount, name


def test_the_ingress_routes_to_the_api_service_with_tls() -> None:
    found = objects()
    ingress = found[("Ingress", "api")]
    (rule,) = ingress["spec"]["rules"]
    (path,) = rule["http"]["paths"]
    backend = path["backend"]["service"]
    assert (path["path"], path["pathType"], backend["name"]) == ("/", "Prefix", "api")
    names = {p["name"] for p in found[("Service", "api")]["spec"]["ports"]}
    assert backend["port"]["name"] in names
    assert ingress["spec"]["tls"][0]["hosts"] == [rule["host"]]


def test_secrets_come_from_secret_references_only() -> None:
    """No literal password, key or database URL in any manifest."""
    secret_names = re.compile(r"PASSWORD|API_KEY|DATABASE_URL|TOKEN|SECRET", re.I)
    for (kind, name), obj in objects().items():
        assert kind != "Secret", f"Secret {name} in the manifests: create it with kubectl"
        if "template" not in obj.get("spec", {}):
            continue
        spec = pod_spec(obj)
        for c in spec["containers"] + spec.get("initContainers", []):
            for env in c.get("env", []):
                if secret_names.search(env["name"]):
                    assert "secretKeyRef" in env.get("valueFrom", {}), (name, env["name"])
    for key in config_map():
        assert not secret_names.search(key), key
    text = "\n".join(p.read_text() for p in manifest_files())
    assert not re.search(r"postgresql(\+psycopg)?://[^:\s]+:[^@\s]+@", text)
