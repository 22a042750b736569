"""Reading the Kubernetes manifests of ``deploy/kubernetes`` as a cluster would: rendered by
``kubectl kustomize``, with each container's environment resolved the way the kubelet does it.

Enough for the checks in this package: ConfigMaps and Secrets referenced by ``env`` and
``envFrom``, the downward API's pod IP, ``$(NAME)`` references (to earlier variables only,
``$$`` for a literal ``$``), and label selectors with ``matchLabels`` and ``matchExpressions``.
"""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml  # type: ignore[import-untyped]

__all__ = [
    "KUBECTL",
    "KUSTOMIZATIONS",
    "Manifests",
    "PodTemplate",
    "expand",
    "render",
    "selects",
]

ROOT = Path(__file__).resolve().parents[2]
KUBERNETES = ROOT / "deploy" / "kubernetes"

#: Every directory with a kustomization, relative to deploy/kubernetes: the base and the overlays.
KUSTOMIZATIONS: tuple[str, ...] = tuple(
    sorted(
        path.parent.relative_to(KUBERNETES).as_posix()
        for path in KUBERNETES.rglob("kustomization.yaml")
    )
)

#: Path of kubectl, or None when it is not installed.
KUBECTL = shutil.which("kubectl")

_REFERENCE = re.compile(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)")

#: The workloads whose pods the checks read.
_WORKLOADS = ("Deployment", "StatefulSet", "DaemonSet", "Job")


@functools.cache
def render(kustomization: str) -> Manifests:
    """``kubectl kustomize deploy/kubernetes/<kustomization>``, parsed."""
    if KUBECTL is None:
        raise RuntimeError("kubectl is not installed")
    rendered = subprocess.run(
        [KUBECTL, "kustomize", str(KUBERNETES / kustomization)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if rendered.returncode != 0:
        raise AssertionError(f"kubectl kustomize {kustomization} failed:\n{rendered.stderr}")
    objects = [document for document in yaml.safe_load_all(rendered.stdout) if document]
    return Manifests(kustomization, tuple(objects))


def expand(text: str, variables: Mapping[str, str]) -> str:
    """``text`` with each ``$(NAME)`` of ``variables`` replaced, as Kubernetes expands ``env``
    values, ``command`` and ``args``: an unknown name stays as written, ``$$`` is one ``$``.

    >>> expand("redis://:$(PASSWORD)@redis:6379 $(OTHER) $$(PASSWORD)", {"PASSWORD": "pw"})
    'redis://:pw@redis:6379 $(OTHER) $(PASSWORD)'
    """

    def replace(found: re.Match[str]) -> str:
        if found[0] == "$$":
            return "$"
        return variables.get(found[1], found[0])

    return _REFERENCE.sub(replace, text)


def references(text: str) -> set[str]:
    """The names ``text`` refers to as ``$(NAME)``."""
    return {found[1] for found in _REFERENCE.finditer(text) if found[1]}


def selects(selector: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    """Whether a label selector selects an object with ``labels`` (an empty one selects all)."""
    for key, value in (selector.get("matchLabels") or {}).items():
        if labels.get(key) != value:
            return False
    for expression in selector.get("matchExpressions") or []:
        key, operator = expression["key"], expression["operator"]
        values = expression.get("values") or []
        if operator == "In" and labels.get(key) not in values:
            return False
        if operator == "NotIn" and key in labels and labels[key] in values:
            return False
        if operator == "Exists" and key not in labels:
            return False
        if operator == "DoesNotExist" and key in labels:
            return False
    return True


@dataclass(frozen=True, slots=True)
class PodTemplate:
    """The pod template of a workload (``kind`` and ``name`` are the workload's)."""

    kind: str
    name: str
    workload: dict[str, Any]

    @property
    def spec(self) -> dict[str, Any]:
        spec: dict[str, Any] = self.workload["spec"]["template"]["spec"]
        return spec

    @property
    def labels(self) -> dict[str, str]:
        labels: dict[str, str] = self.workload["spec"]["template"]["metadata"]["labels"]
        return labels

    @property
    def containers(self) -> list[dict[str, Any]]:
        containers: list[dict[str, Any]] = self.spec["containers"]
        return containers

    def container(self, name: str | None = None) -> dict[str, Any]:
        """The container called ``name``, or the only one."""
        if name is None:
            (only,) = self.containers
            return only
        (found,) = (c for c in self.containers if c["name"] == name)
        return found

    def runs(self, program: str) -> bool:
        """Whether a container's command line starts with ``program``."""
        return any(
            (container.get("command") or container.get("args") or [""])[0] == program
            for container in self.containers
        )


@dataclass(frozen=True, slots=True)
class Manifests:
    """The objects one kustomization renders."""

    kustomization: str
    objects: tuple[dict[str, Any], ...]

    def of_kind(self, kind: str) -> list[dict[str, Any]]:
        return [o for o in self.objects if o["kind"] == kind]

    def one(self, kind: str, name: str | None = None) -> dict[str, Any]:
        """The object of ``kind`` called ``name``, or the only one of its kind."""
        found = [o for o in self.of_kind(kind) if name is None or o["metadata"]["name"] == name]
        assert len(found) == 1, f"{self.kustomization}: {len(found)} {kind} named {name}"
        return found[0]

    def get(self, kind: str, name: str) -> dict[str, Any] | None:
        found = [o for o in self.of_kind(kind) if o["metadata"]["name"] == name]
        return found[0] if found else None

    def pods(self) -> Iterator[PodTemplate]:
        for kind in _WORKLOADS:
            for workload in self.of_kind(kind):
                yield PodTemplate(kind, workload["metadata"]["name"], workload)

    def pod(self, kind: str, name: str) -> PodTemplate:
        return PodTemplate(kind, name, self.one(kind, name))

    def environment(
        self,
        container: Mapping[str, Any],
        secrets: Mapping[str, Mapping[str, str]],
        pod_ip: str = "127.0.0.1",
    ) -> dict[str, str]:
        """The container's environment as the kubelet makes it: ``envFrom`` first, then ``env``
        in order, each value expanded with the variables before it. ``secrets``: name -> data
        (the Secrets the cluster would hold); an optional reference to a missing one is left
        out, a required one fails the test."""
        variables: dict[str, str] = {}
        for source in container.get("envFrom") or []:
            prefix = source.get("prefix", "")
            if "configMapRef" in source:
                data = self._config_map(source["configMapRef"]["name"])
            else:
                data = dict(secrets[source["secretRef"]["name"]])
            variables.update({prefix + key: value for key, value in data.items()})
        for entry in container.get("env") or []:
            if "value" in entry:
                variables[entry["name"]] = expand(entry["value"], variables)
                continue
            origin = entry["valueFrom"]
            if "secretKeyRef" in origin:
                reference = origin["secretKeyRef"]
                secret = secrets.get(reference["name"])
                if secret is None or reference["key"] not in secret:
                    assert reference.get("optional"), f"no Secret {reference} for {entry}"
                    continue
                variables[entry["name"]] = secret[reference["key"]]
            elif "configMapKeyRef" in origin:
                reference = origin["configMapKeyRef"]
                variables[entry["name"]] = self._config_map(reference["name"])[reference["key"]]
            elif origin.get("fieldRef", {}).get("fieldPath") == "status.podIP":
                variables[entry["name"]] = pod_ip
            else:
                raise AssertionError(f"cannot resolve {entry}")
        return variables

    def _config_map(self, name: str) -> dict[str, str]:
        data: dict[str, str] = self.one("ConfigMap", name).get("data") or {}
        return data
