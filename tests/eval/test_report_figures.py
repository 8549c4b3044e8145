"""Rules every report figure follows: no figure without data, every bar labelled, zero bars visible;
checked on matplotlib objects, and end to end on the demo releases as a new user runs them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from eval.release import open_release
from eval.report import SCORE_VS_LENGTH, write_report
from eval.report_plots import ZERO_BAR_LINEWIDTH, has_data, label_bars
from eval.runner import RunSpec, run
from tests.support.scripted import ScriptedBackend

GROUPS_PLOT = "sequential_niah_groups.png"


def figure_with(draw: Callable[[Any], object]) -> Any:
    """A one-axes figure after ``draw(axes)``."""
    from matplotlib.figure import Figure

    figure = Figure()
    draw(figure.subplots())
    return figure


def test_has_data_counts_values_not_frames() -> None:
    import numpy as np

    assert not has_data(figure_with(lambda ax: None))
    assert not has_data(figure_with(lambda ax: ax.plot([], [], marker="o")))
    assert not has_data(figure_with(lambda ax: (ax.axhline(50), ax.axvline(2))))
    assert not has_data(figure_with(lambda ax: ax.plot([1, 2], [float("nan")] * 2)))
    assert not has_data(figure_with(lambda ax: ax.imshow(np.ma.masked_invalid(np.full((2, 2), np.nan)))))
    assert has_data(figure_with(lambda ax: ax.plot([4096], [50.0])))
    assert has_data(figure_with(lambda ax: ax.bar([0], [0.0])))
    assert has_data(figure_with(lambda ax: ax.imshow(np.ma.masked_invalid(np.array([[np.nan, 1.0]])))))
    assert has_data(figure_with(lambda ax: ax.scatter([1], [1])))


def test_labels_turn_upright_where_bars_are_narrow() -> None:
    wide = label_bars(figure_with(lambda ax: ax.bar(range(3), [20.0, 0.0, 100.0])))
    narrow = label_bars(figure_with(lambda ax: ax.bar(range(40), [50.0] * 40)))
    assert [text.get_rotation() for text in wide.axes[0].texts] == [0, 0, 0]
    assert [text.get_text() for text in wide.axes[0].texts] == ["20.0", "0.0", "100.0"]
    assert {text.get_rotation() for text in narrow.axes[0].texts} == {90} and len(narrow.axes[0].texts) == 40


def bar_labels(ax: Any) -> list[tuple[float, str]]:
    """(bar centre, label text) of every bar label in the axes, left to right."""
    return sorted((text.xy[0], text.get_text()) for text in ax.texts)


def group_block(accuracy: Mapping[str, Mapping[str, float]]) -> dict[str, Any]:
    """A Sequential-NIAH block with the given accuracy (fraction) per group column and value."""
    return {"by": {column: {value: {"accuracy": score, "n": 2} for value, score in values.items()}
                   for column, values in accuracy.items()}}


def test_group_bars_at_zero_are_outlined_and_every_bar_is_labelled() -> None:
    from eval.benchmarks.sequential_niah.report import plot_groups

    class Labelled:
        def __init__(self, label: str) -> None:
            self.label = label

    first = group_block({"length_bucket": {"8k-16k": 0.5, "16k-32k": 0.0}, "needle_count": {"3": 1.0},
                         "pipeline": {"synthetic-temporal": 0.0}, "lang": {"en": 0.25, "zh": 0.0}})
    second = group_block({"length_bucket": {"8k-16k": 0.0, "16k-32k": 1.0}, "needle_count": {"3": 0.0},
                          "pipeline": {"synthetic-temporal": 1 / 3}, "lang": {"en": 0.0, "zh": 1.0}})
    figure = label_bars(plot_groups([(Labelled("a"), first), (Labelled("b"), second)]))
    length_ax = figure.axes[0]
    bars = [bar for container in length_ax.containers for bar in container]
    assert [round(bar.get_height(), 6) for bar in bars] == [50.0, 0.0, 0.0, 100.0]
    assert [text for _, text in bar_labels(length_ax)] == ["50.0", "0.0", "0.0", "100.0"]
    for bar in bars:
        outlined = bar.get_linewidth() == ZERO_BAR_LINEWIDTH and bar.get_edgecolor() == bar.get_facecolor()
        assert outlined == (bar.get_height() == 0)
        assert bar.get_clip_on() == (bar.get_height() != 0)
    assert length_ax.get_ylim()[1] > 100  # room for the label over a full bar
    for ax in figure.axes:
        heights = [bar.get_height() for container in ax.containers for bar in container]
        assert len(ax.texts) == len(heights) and all(text.get_text() for text in ax.texts)
    assert [text for _, text in bar_labels(figure.axes[2])] == ["0.0", "33.3"]


def test_a_group_a_run_has_no_sample_in_has_no_bar_and_reads_n_a() -> None:
    """A missing group is not an accuracy of 0: no bar is drawn, its label says n/a."""
    from eval.benchmarks.sequential_niah.report import plot_groups

    class Labelled:
        label = "a"

    with_4k = group_block({"length_bucket": {"4k-7k": 0.5}, "needle_count": {"3": 1.0},
                           "pipeline": {"real-logical": 0.0}, "lang": {"en": 0.5}})
    with_8k = group_block({"length_bucket": {"8k-16k": 0.0}, "needle_count": {"3": 1.0},
                           "pipeline": {"real-logical": 0.0}, "lang": {"en": 0.5}})
    figure = label_bars(plot_groups([(Labelled(), with_4k), (Labelled(), with_8k)]))
    length_ax = figure.axes[0]
    assert [text for _, text in bar_labels(length_ax)] == ["50.0", "n/a", "n/a", "0.0"]
    drawn = [bar for container in length_ax.containers for bar in container if bar.get_height() == bar.get_height()]
    assert [bar.get_height() for bar in drawn] == [50.0, 0.0]


# End to end on the demo releases ------------------------------------------------------------------------


def correct_list(row: Mapping[str, Any]) -> str:
    """A Sequential-NIAH answer listing the row's reference items in order."""
    return "\n".join(f"{index}. {item}" for index, item in enumerate(row["answers"], 1))


@pytest.fixture(scope="module")
def demo_runs(demo, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Scripted runs over the demo's HaystackCraft, Sequential-NIAH (English right, Chinese wrong) and ATC configs."""
    root = tmp_path_factory.mktemp("demo-runs")
    sequential = open_release(str(demo.folder / "sequential-niah"))
    rows = {row["input"]: row for row in sequential.iter_rows("default", "test")}
    assert {row["lang"] for row in rows.values()} == {"en", "zh"}

    def answer_sequential(content: str) -> str:
        row = rows[content]
        return correct_list(row) if row["lang"] == "en" else "I cannot tell."

    plan: dict[str, tuple[str, tuple[str, ...], Callable[[str], str]]] = {
        "haystackcraft": ("haystackcraft", ("static-descending",), lambda content: "Answer: Paris"),
        "sequential-niah": ("sequential-niah", ("default",), answer_sequential),
        "atc": ("needlebench", ("atc-en", "atc-zh"), lambda content: "\\boxed{nobody}"),
    }
    for name, (release, configs, answer) in plan.items():
        spec = RunSpec(dataset=str(demo.folder / release), configs=configs, model=f"scripted-{name}", backend="vllm",
                       output_dir=root / name)
        run(spec, backend=ScriptedBackend(answer), progress=False)
    return {name: root / name for name in plan}


def written(out: Path) -> list[str]:
    return sorted(path.name for path in out.iterdir())


def test_atc_alone_gets_no_score_vs_length_plot(demo_runs: dict[str, Path], tmp_path: Path) -> None:
    files = write_report([demo_runs["atc"]], tmp_path)
    text = files.markdown.read_text(encoding="utf-8")
    assert written(tmp_path) == ["atc_curve.png", "report.html", "report.md"]
    assert SCORE_VS_LENGTH not in text
    assert ("No score-vs-length plot: the rows of these runs carry no length column (length, context size or "
            "length bucket).") in text


def test_haystackcraft_sizes_and_sequential_buckets_are_drawn(demo_runs: dict[str, Path], tmp_path: Path) -> None:
    files = write_report([demo_runs["haystackcraft"], demo_runs["sequential-niah"]], tmp_path)
    text = files.markdown.read_text(encoding="utf-8")
    assert SCORE_VS_LENGTH in written(tmp_path) and f"]({SCORE_VS_LENGTH})" in text
    assert "No score-vs-length plot" not in text and "Left out of the score-vs-length plot" not in text
    assert "| context size (tokens) |" in text and "| length bucket (tokens) |" in text
    assert "No cells for this config" not in text


def test_the_written_group_bars_carry_their_labels(demo_runs: dict[str, Path], tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """What reaches the PNG: every bar labelled, the Chinese bars (all wrong) outlined at 0."""
    import eval.report

    seen: dict[str, list[Any]] = {}
    real_png_bytes = eval.report.png_bytes

    def panel(ax: Any) -> tuple[list[float], list[str], list[bool]]:
        bars = [bar for container in ax.containers for bar in container]
        return ([bar.get_height() for bar in bars], [text.get_text() for text in ax.texts],
                [bar.get_edgecolor() == bar.get_facecolor() for bar in bars])

    def capture(figure: Any) -> bytes:
        seen[figure.get_suptitle()] = [panel(ax) for ax in figure.axes]
        return real_png_bytes(figure)

    monkeypatch.setattr(eval.report, "png_bytes", capture)
    files = write_report([demo_runs["sequential-niah"]], tmp_path)
    assert GROUPS_PLOT in [path.name for path in files.plots]
    panels = seen["Sequential-NIAH: accuracy across groups"]
    for heights, labels, _ in panels:
        assert labels == [f"{height:.1f}" for height in heights] and heights
    language_heights, language_labels, outlined = panels[3]
    assert language_heights == [100.0, 0.0] and language_labels == ["100.0", "0.0"]
    assert outlined == [False, True]
