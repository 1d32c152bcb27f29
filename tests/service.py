"""The running-service launcher lives in evaluation.service (the red-team runner uses it
too); tests import it from here."""

from evaluation.service import ROOT, Service, free_port, ingest, service_env

__all__ = ["ROOT", "Service", "free_port", "ingest", "service_env"]
