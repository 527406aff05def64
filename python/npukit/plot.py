"""Plots of a run with matplotlib (Debian python3-matplotlib): unit utilisation from
Machine.stats() and a timeline from a Machine.timeline() trace (docs/python.md)."""

import json


def _axes(ax, size):
    if ax is not None:
        return ax.figure, ax
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt.subplots(figsize=size)


def utilisation(stats, ax=None, title=None):
    """A bar per unit: its busy cycles over the run's cycles (stats: Machine.stats()).
    Returns the figure."""
    fig, ax = _axes(ax, (6, 3))
    units = list(stats["unit_busy"])
    cyc = stats["cycles"] or 1
    vals = [stats["unit_busy"][u] / cyc for u in units]
    ax.barh(units, vals, color="tab:blue")
    ax.set_xlim(0, 1)
    ax.invert_yaxis()
    ax.set_xlabel(f"busy / {stats['cycles']:,} cycles")
    ax.set_title(title or f"{stats['target']}: unit utilisation")
    for y, v in enumerate(vals):
        ax.text(min(v + 0.01, 0.9), y, f"{v:.3f}", va="center", fontsize=8)
    fig.tight_layout()
    return fig


def timeline(trace, ax=None, title=None):
    """A row per track (engine, unit) of a Chrome trace-event timeline (a path or the list of
    events), a bar per event, over cycles. Returns the figure."""
    if not isinstance(trace, list):
        with open(trace) as f:
            trace = json.load(f)
        if isinstance(trace, dict):
            trace = trace["traceEvents"]
    names = {e["tid"]: e["args"]["name"] for e in trace
             if e.get("ph") == "M" and e.get("name") == "thread_name"}
    spans = [e for e in trace if e.get("ph") == "X"]
    tids = sorted({e["tid"] for e in spans})
    fig, ax = _axes(ax, (9, 1.2 + 0.45 * len(tids)))
    colours = {}
    palette = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown",
               "tab:pink", "tab:gray", "tab:olive", "tab:cyan"]
    for e in spans:
        c = colours.setdefault(e["name"], palette[len(colours) % len(palette)])
        ax.broken_barh([(e["ts"], max(e.get("dur", 0), 0.5))], (tids.index(e["tid"]) - 0.4, 0.8),
                       facecolors=c)
    ax.set_yticks(range(len(tids)), [names.get(t, str(t)) for t in tids])
    ax.invert_yaxis()
    ax.set_xlabel("cycle")
    ax.set_title(title or "timeline")
    handles = [__import__("matplotlib.patches", fromlist=["Patch"]).Patch(color=c, label=n)
               for n, c in colours.items()]
    if len(handles) <= 16:
        ax.legend(handles=handles, fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    return fig
