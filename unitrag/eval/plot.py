"""One picture of an evaluation: a group of bars per metric, one bar per variant.

On SciFact the published nDCG@10 of well-known systems (DESIGN.md) are drawn across
the nDCG@10 group, so where each variant stands is visible at a glance; the best
variant of each metric is labelled with its value.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import UserError
from .metrics import MEASURES
from .report import EvalReport

#: Published SciFact test nDCG@10 (BEIR paper, model cards, SBERT documentation).
PUBLISHED_NDCG10 = {
    "scifact": {
        "BM25 (BEIR)": 0.665,
        "all-MiniLM-L6-v2": 0.645,
        "multilingual-e5-small": 0.676,
        "BM25 + MiniLM cross-encoder": 0.688,
    },
}


def published_for(dataset: str) -> dict[str, float]:
    return PUBLISHED_NDCG10.get(dataset.lower(), {})


#: The picture formats --plot writes, by the file's suffix (matplotlib writes each without extra packages).
PLOT_FORMATS = (".png", ".svg", ".pdf")


def check_plot_path(path: Path) -> None:
    """A UserError unless ``path`` can take the picture: a .png, .svg or .pdf name in a folder that exists and is
    writable, not a folder, a FIFO or a device itself. Said before anything runs, not after a whole evaluation."""
    if path.is_dir():
        raise UserError(f"--plot {path} is a folder: give a file name such as {path / 'eval.png'}")
    if path.suffix.lower() not in PLOT_FORMATS:
        raise UserError(f"--plot {path}: give a file name ending in {', '.join(PLOT_FORMATS)} (the picture's format)")
    if path.exists() and not path.is_file():
        raise UserError(f"--plot {path} is not a regular file (a FIFO, a device or a socket): give a new file name")
    folder = path.parent
    if not folder.is_dir():
        raise UserError(f"--plot {path}: folder {folder} not found (create it, or write the picture elsewhere)")
    if not os.access(folder, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise UserError(f"--plot {path}: cannot write there (permission denied)")


def plot_report(report: EvalReport, path: Path) -> Path:
    """Write the picture (its format by ``path``'s suffix; PNG without one) and return the path written; the data
    set's published reference lines when it has any."""
    import matplotlib

    matplotlib.use("Agg")  # no display needed
    import matplotlib.pyplot as plt

    names = list(report.variants)
    metrics = list(MEASURES)
    width = 0.8 / max(len(names), 1)
    fig, ax = plt.subplots(figsize=(max(8.0, 1.6 * len(metrics) + 0.3 * len(names)), 4.8), dpi=110)
    colours = plt.get_cmap("viridis")([i / max(len(names) - 1, 1) for i in range(len(names))])
    highest = report.best()
    for i, name in enumerate(names):
        values = [report.variants[name].metrics[m] for m in metrics]
        xs = [j + (i - (len(names) - 1) / 2) * width for j in range(len(metrics))]
        ax.bar(xs, values, width * 0.95, label=name, color=colours[i])
        for x, metric, value in zip(xs, metrics, values):
            best = value == highest[metric]
            ax.annotate(f"{value:.3f}", (x, value), ha="center", va="bottom", fontsize=6.5, rotation=90,
                        xytext=(0, 2), textcoords="offset points", fontweight="bold" if best else "normal")
    j = metrics.index("ndcg@10")
    references = sorted(published_for(report.dataset).items(), key=lambda kv: -kv[1])
    styles = ["dashed", "dotted", "dashdot", (0, (5, 1, 1, 1))]
    lines = [ax.hlines(value, j - 0.45, j + 0.45, colors="black", linestyles=styles[k % len(styles)], linewidth=1.3, zorder=5,
                       label=f"{label} {value:.3f}") for k, (label, value) in enumerate(references)]
    ax.set_xticks(range(len(metrics)), metrics)
    ax.set_ylim(0, 1.15)
    ax.set_ylabel("score")
    title = f"unitrag eval: {report.dataset}"
    if report.kind == "beir":
        title += f" ({report.extra.get('split')}, {report.primary.queries} queries, {report.pipeline['embedder']})"
    ax.set_title(title, fontsize=10)
    variant_legend = ax.legend(handles=ax.containers, labels=names, title="variant", fontsize=8, ncols=min(len(names), 6),
                               loc="upper center", bbox_to_anchor=(0.5, -0.08))
    if lines:  # the published systems, beside the bars they compare with
        ax.add_artist(variant_legend)
        ax.legend(handles=lines, title="published nDCG@10", fontsize=7, title_fontsize=7, loc="upper left", framealpha=0.9)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    if not path.suffix:  # what savefig does with such a name: a PNG, ".png" appended (the path written is returned)
        path = path.with_name(path.name + ".png")
    try:
        fig.savefig(path, bbox_inches="tight")  # the legends sit outside the axes
    except OSError as exc:
        raise UserError(f"--plot {path}: cannot write ({exc.strerror or exc})") from None
    except ValueError as exc:  # a format matplotlib does not write
        raise UserError(f"--plot {path}: {exc}; give a file name ending in {', '.join(PLOT_FORMATS)}") from None
    finally:
        plt.close(fig)
    return path
