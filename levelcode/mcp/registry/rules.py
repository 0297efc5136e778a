"""The rules a registry's `server.json` must keep before LevelCode makes an entry of it: the package
kinds it runs and how (npm with `npx`, PyPI with `uvx`, OCI images with `docker`), names and
versions exact enough to pin (never `latest`, a range, or a moving tag), option names that are
options, and the runner options a server may ask for — few, because a runner's options decide
what runs (`npx -c`, `uvx --from`, `docker --privileged -v /:/host`).

Pure: strings in, strings out, `RegistryError` (one line, naming the server and the field) for
anything else. Load-bearing direction: what these refuse must not reach an entry.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from levelcode.core.errors import RegistryError
from levelcode.mcp.launch.entries import npm_spec_pinned

PURE = True

# registryType → the runner LevelCode starts such a package with
RUNNERS = {"npm": "npx", "pypi": "uvx", "oci": "docker"}
NPM_NAME = re.compile(r"^(@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*$", re.IGNORECASE)
PYPI_NAME = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$")
# PEP 440, one exact release: 1.2.3, 0.0.1a4, 2.0.0rc1, 1.0.post1, 1!2.0, 1.0.dev3, 1.0+local
PYPI_EXACT = re.compile(
    r"^(\d+!)?\d+(\.\d+)*((a|b|rc)\d+)?(\.post\d+)?(\.dev\d+)?(\+[a-z0-9]+(\.[a-z0-9]+)*)?$", re.IGNORECASE
)
OPTION_NAME = re.compile(r"^--?[A-Za-z0-9][A-Za-z0-9_.-]*$")
VARIABLE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
PYTHON_VERSION = re.compile(r"^\d+(\.\d+){0,2}$")
EXTRAS = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)(?P<extras>\[[A-Za-z0-9_,.-]+\])?$")
_OCI_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
OCI_REFERENCE = re.compile(
    rf"^(?P<repository>(?:[A-Za-z0-9.-]+(?::\d+)?/)?{_OCI_COMPONENT}(?:/{_OCI_COMPONENT})*)"
    r"(?::(?P<tag>[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}))?(?:@(?P<digest>sha256:[a-f0-9]{64}))?$"
)
# A tag that names one release (1.2.3, v0.20.1, 2025.1.1-alpine); not latest, main, stable, edge.
VERSION_TAG = re.compile(r"^v?\d+(\.\d+)+([-+_.][0-9A-Za-z.-]+)?$")


@dataclass(frozen=True)
class ImageReference:
    repository: str  # ghcr.io/owner/image
    tag: str | None
    digest: str | None  # sha256:…

    def text(self) -> str:
        """`repo@sha256:…` when there is a digest (what runs is then fixed), else `repo:tag`."""
        return f"{self.repository}@{self.digest}" if self.digest else f"{self.repository}:{self.tag}"


def npm_package(identifier: str, version: str | None, where: str) -> str:
    """`@scope/pkg@1.2.3`: an npm name and an exact version."""
    if not NPM_NAME.match(identifier) or len(identifier) > 214:
        raise RegistryError(f"{where}: {identifier!r} is not an npm package name")
    spec = f"{identifier}@{version}"
    if version is None or not npm_spec_pinned(spec):
        raise RegistryError(f"{where}: npm version {version!r} is not an exact version (such as 1.2.3)")
    return spec


def pypi_package(identifier: str, version: str | None, where: str) -> str:
    """`pkg==1.2.3`: a PyPI name and an exact version."""
    if not PYPI_NAME.match(identifier):
        raise RegistryError(f"{where}: {identifier!r} is not a PyPI package name")
    if version is None or not PYPI_EXACT.match(version):
        raise RegistryError(f"{where}: PyPI version {version!r} is not an exact version (such as 1.2.3)")
    return f"{identifier}=={version}"


def oci_image(identifier: str, version: str | None, where: str) -> ImageReference:
    """The image by digest where the registry gives one; else by a tag that names one release
    (the older form's `version` taken as the tag). `latest`, no tag, or a moving tag is refused."""
    match = OCI_REFERENCE.match(identifier)
    if match is None:
        raise RegistryError(f"{where}: {identifier!r} is not an OCI image reference")
    tag, digest = match.group("tag"), match.group("digest")
    if tag is None and digest is None and version is not None:
        tag = version
    if digest is None and (tag is None or not VERSION_TAG.match(tag)):
        raise RegistryError(
            f"{where}: image {identifier!r} is not pinned: expected a digest (@sha256:…) or a tag "
            f"naming one release (such as 1.2.3), not {tag or 'no tag'!r}"
        )
    return ImageReference(match.group("repository"), tag, digest)


def option_name(name: str, where: str) -> str:
    """A named argument's flag: dashes and a plain word, nothing a shell or a runner could read
    as anything else."""
    if not OPTION_NAME.match(name):
        raise RegistryError(f"{where}: {name!r} is not an option name (such as --port)")
    return name


def variable_name(name: str, where: str) -> str:
    if not VARIABLE_NAME.match(name):
        raise RegistryError(f"{where}: {name!r} is not an environment variable name")
    return name


def refused_runner_option(runner: str, word: str, where: str) -> RegistryError:
    return RegistryError(
        f"{where}: {runner} option {word!r} is not one LevelCode passes (a runner's options decide "
        "what runs and what it may reach); if you trust it, add the server by hand with levelcode mcp add"
    )


# A version the registry answered for "latest" must still name one release.
_NOT_EXACT = re.compile(r"(^latest$)|[\^~<>=*|\s]|(\.x$)|(^x$)", re.IGNORECASE)


def checked_answer(
    name: str, version: str, answered_name: str, answered_version: str, status: str | None
) -> None:
    """The registry answered with the server and version asked for (`latest`: a version that names
    one release), and not one it deleted; RegistryError otherwise."""
    if answered_name != name:
        raise RegistryError(
            f"asked for {name}, the registry answered with {answered_name!r}; nothing written"
        )
    if version not in ("latest", answered_version):
        said = f"the registry answered with version {answered_version!r}"
        raise RegistryError(f"asked for {name} {version}, {said}; nothing written")
    if _NOT_EXACT.search(answered_version):
        raise RegistryError(
            f"{name}: the registry's version {answered_version!r} is not one release; nothing written"
        )
    if status == "deleted":
        raise RegistryError(f"{name} {answered_version} was deleted from the registry; nothing written")
