"""Fetch the pinned package versions through their registry clients and unpack them.

Every download lands in ``.cache/dl/`` and is unpacked once into
``.cache/src/<project>/<version>/``; later runs reuse both. Only the ordinary clients
are used: ``cargo fetch`` (in a throwaway project), ``pip download`` (source
distributions) and ``npm pack``.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tarfile
import tomllib
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Project:
    """One pinned pair of released versions of a package."""

    name: str
    registry: str  # "crates", "pypi" or "npm"
    package: str
    old: str
    new: str
    language: str
    license: str


def load_projects(path: Path) -> list[Project]:
    """Read ``projects.toml``: the pinned projects, in file order."""
    with open(path, "rb") as f:
        data = tomllib.load(f)
    return [Project(**entry) for entry in data["project"]]


def fetch_project(project: Project, cache: Path) -> tuple[Path, Path]:
    """Return the unpacked old and new trees of ``project``, fetching what is missing."""
    return tuple(_unpacked(project, version, cache) for version in (project.old, project.new))


def _unpacked(project: Project, version: str, cache: Path) -> Path:
    """Unpack one version into ``.cache/src`` (once) and return its root folder."""
    dest = cache / "src" / project.name / version
    if (dest / ".complete").exists():
        return dest
    archive = _download(project, version, cache)
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    with tarfile.open(archive) as tar:
        tar.extractall(dest, filter="data")
    # Every archive holds one top folder (name-version/ or package/): use its inside.
    entries = [p for p in dest.iterdir()]
    if len(entries) == 1 and entries[0].is_dir():
        inner = entries[0]
        for child in inner.iterdir():
            child.rename(dest / child.name)
        inner.rmdir()
    (dest / ".complete").write_text("")
    return dest


def _download(project: Project, version: str, cache: Path) -> Path:
    """Download one version's archive into ``.cache/dl`` and return its path."""
    dl = cache / "dl"
    dl.mkdir(parents=True, exist_ok=True)
    if project.registry == "crates":
        return _download_crate(project.package, version, cache)
    if project.registry == "pypi":
        return _download_sdist(project.package, version, dl)
    if project.registry == "npm":
        return _download_npm(project.package, version, dl)
    raise ValueError(f"unknown registry {project.registry!r}")


def _download_crate(package: str, version: str, cache: Path) -> Path:
    """``cargo fetch`` a throwaway project that pins the crate; return the ``.crate`` file."""
    name = f"{package}-{version}.crate"
    target = cache / "dl" / name
    if target.exists():
        return target
    proj = cache / "cargo" / f"{package}-{version}"
    (proj / "src").mkdir(parents=True, exist_ok=True)
    (proj / "src" / "main.rs").write_text("fn main() {}\n")
    (proj / "Cargo.toml").write_text(
        '[package]\nname = "pin"\nversion = "0.0.0"\nedition = "2021"\n\n[workspace]\n\n'
        f'[dependencies]\n{package} = "={version}"\n'
    )
    subprocess.run(["cargo", "fetch", "--quiet"], cwd=proj, check=True)
    cargo_home = Path(os.environ.get("CARGO_HOME", Path.home() / ".cargo"))
    found = sorted(glob.glob(str(cargo_home / "registry" / "cache" / "*" / name)))
    if not found:
        raise FileNotFoundError(f"cargo fetched {package} {version} but {name} is not in the cache")
    shutil.copyfile(found[0], target)
    return target


def _download_sdist(package: str, version: str, dl: Path) -> Path:
    """``pip download`` the source distribution of one version."""
    pattern = f"{package.replace('-', '_')}-{version}.tar.gz"
    existing = _find_ci(dl, pattern)
    if existing:
        return existing
    subprocess.run(
        ["pip", "download", f"{package}=={version}", "--no-deps", "--no-binary", ":all:",
         "--quiet", "--dest", str(dl)],
        check=True,
    )
    found = _find_ci(dl, pattern)
    if not found:
        raise FileNotFoundError(f"pip downloaded no {pattern}")
    return found


def _download_npm(package: str, version: str, dl: Path) -> Path:
    """``npm pack`` one version's tarball."""
    target = dl / f"{package}-{version}.tgz"
    if not target.exists():
        subprocess.run(
            ["npm", "pack", f"{package}@{version}", "--quiet", "--pack-destination", str(dl)],
            check=True, stdout=subprocess.DEVNULL,
        )
    return target


def _find_ci(folder: Path, name: str) -> Path | None:
    """Find ``name`` in ``folder`` ignoring case and ``-``/``_`` (sdist names vary)."""
    want = name.lower().replace("-", "_")
    for p in sorted(folder.iterdir()):
        if p.name.lower().replace("-", "_") == want:
            return p
    return None
