"""The api image carries its runtime requirements and works with no network at all: the
personal-data stripper (Presidio over a blank spaCy pipeline, validate-docbr, rapidfuzz)
strips a question inside a container started with `--network none`, with every socket
connection refused in the process too, so nothing (no spaCy model, no public-suffix list
for tldextract) is fetched at run time."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from tests.compose.conftest import ROOT

pytestmark = [pytest.mark.compose, pytest.mark.slow]

CHECK = r"""
import importlib, json, socket
from importlib.metadata import version

def refuse(*args, **kwargs):
    raise RuntimeError(f"network access attempted: {args[1:2]}")

socket.socket.connect = refuse
socket.create_connection = refuse
packages = {
    "presidio_analyzer": "presidio-analyzer", "presidio_anonymizer": "presidio-anonymizer",
    "spacy": "spacy", "validate_docbr": "validate-docbr", "rapidfuzz": "rapidfuzz",
    "sqlalchemy": "SQLAlchemy", "psycopg": "psycopg", "sklearn": "scikit-learn",
    "fastapi_swagger": "fastapi-swagger", "alembic": "alembic", "mako": "Mako",
}
versions = {}
for module, dist in packages.items():
    importlib.import_module(module)
    versions[dist] = version(dist)
import psycopg
import spacy.util
from app.safety.pii import clean_question
question = ("Meu nome é Ana Souza, CPF 123.456.789-09, telefone (11) 98765-4321, "
            "e-mail ana.souza@exemplo.com.br. Devo tomar a levotiroxina em jejum?")
print(json.dumps({
    "versions": versions,
    "psycopg": psycopg.pq.__impl__,
    "spacy_models": sorted(spacy.util.get_installed_models()),
    "cleaned": clean_question(question),
}))
"""


def test_api_image_strips_personal_data_with_no_network(built_images: None) -> None:
    prefix, tag = os.environ.get("IMAGE_PREFIX", "cartoes"), os.environ.get("IMAGE_TAG", "latest")
    res = subprocess.run(
        ["docker", "run", "--rm", "--network", "none", "--entrypoint", "python",
         f"{prefix}-api:{tag}", "-c", CHECK],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr[-3000:]
    out = json.loads(res.stdout.strip().splitlines()[-1])
    pins = {}
    for line in (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines():
        name, sep, pin = line.split("#")[0].strip().partition("==")
        if sep:
            pins[name.split("[")[0].lower()] = pin
    # The versions requirements.txt pins, whichever path (index or wheelhouse) built it
    # (spaCy comes with Presidio, unpinned).
    pinned = {d: v for d, v in out["versions"].items() if d != "spacy"}
    assert pinned == {d: pins[d.lower()] for d in pinned}, out["versions"]
    assert out["psycopg"] == "binary", out
    assert out["spacy_models"] == [], "a spaCy model was installed; the stripper needs none"
    cleaned = out["cleaned"]
    for personal in ("Ana", "Souza", "123.456.789-09", "98765-4321", "ana.souza@"):
        assert personal not in cleaned, cleaned
    assert "levotiroxina em jejum" in cleaned, cleaned
