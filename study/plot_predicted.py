"""fig-predicted: the run-time change the exact allocator costs predict (x) against the
change the timed runs measured (y, with its 95% interval), one point per workload and pair
of policies, and the diagonal where the two are equal (study/predicted.py writes
predicted.csv). Drawn by study/plot_study.py, whose styles and saving it uses.

figures(ps) returns [(name, draw)] for plot_study.py's FIGURES; ps is plot_study itself,
passed in (as size_class_plot.py's), so that this module does not import it back."""

PERCENT = 100.0


def figures(ps):
    return [("fig-predicted", lambda out_dir: fig_predicted(ps, out_dir))]


def fig_predicted(ps, out_dir):
    rows = ps.need(out_dir, "predicted.csv",
                   lambda r: ps.col(r, "predicted") is not None and ps.col(r, "measured") is not None)
    collectors = ps.ordered([r["collector"] for r in rows], ps.COLLECTOR_ORDER)
    panels = [("each policy against list", [r for r in rows if r["base"] == "list"]),
              ("delayed against eager recombination", [r for r in rows if r["base"] != "list"])]
    panels = [(title, mine) for title, mine in panels if mine]
    fig, axes = ps.plt.subplots(len(panels), len(collectors), squeeze=False, layout="constrained",
                                figsize=(ps.DOUBLE, 0.6 + 2.6 * len(panels)))
    policies, styles = ps.policy_series(rows)
    pairs = []
    for i, (title, mine) in enumerate(panels):
        for j, c in enumerate(collectors):
            ax = axes[i][j]
            here = [r for r in mine if r["collector"] == c]
            for r in here:
                draw_point(ps, ax, r, styles[r["policy"]])
                pair = (r["policy"], r["base"])
                if pair not in pairs:
                    pairs.append(pair)
            diagonal(ps, ax, here)
            ax.set_title(f"{title}, {c} collection")
            ax.set_xlabel("predicted change of run time (%)")
            ax.set_ylabel("measured change (%), 95% CI")
    handles = [ps.handle(f"{p} vs {b}", styles[p]) for p, b in pairs]
    grey = ("#777777", "o")
    handles += [ps.Line2D([], [], linestyle="none", label="filled: prediction inside the interval",
                          **ps.marker_kw(grey)),
                ps.Line2D([], [], linestyle="none", label="hollow: outside", **ps.marker_kw(grey, False)),
                ps.Line2D([], [], color="#555555", linestyle="--", label="measured = predicted")]
    fig.suptitle("Predicted against measured change of run time (policy vs base; <0: faster)")
    ps.legend_below(fig, handles, ncol=5)
    ps.save(fig, out_dir, "fig-predicted")


def draw_point(ps, ax, r, style):
    """One pair: the measured value with its interval bar over the predicted value; filled
    when the interval holds the prediction."""
    x, y = PERCENT * ps.col(r, "predicted"), PERCENT * ps.col(r, "measured")
    iv = ps.interval(r, "ci_low", "ci_high")
    if iv:
        ax.plot([x, x], [PERCENT * iv[0], PERCENT * iv[1]], color=style[0], linewidth=0.6, alpha=0.6)
    ax.plot([x], [y], linestyle="none", **ps.marker_kw(style, filled=ps.truthy(r.get("agrees")), size=3.5))


def diagonal(ps, ax, rows):
    """y = x across the panel's predicted range, and the zero lines."""
    xs = [PERCENT * ps.col(r, "predicted") for r in rows]
    if not xs:
        return
    lo, hi = min(xs + [0.0]), max(xs + [0.0])
    pad = max(0.5, 0.05 * (hi - lo))
    ax.plot([lo - pad, hi + pad], [lo - pad, hi + pad], color="#555555", linestyle="--", linewidth=0.8)
    ax.axhline(0, color="#999999", linewidth=0.5)
    ax.axvline(0, color="#999999", linewidth=0.5)
