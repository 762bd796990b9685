"""vtgate report --html on the sample reports (tests/report/data, written by the real commands): every
page type is there, every page passes the HTML/accessibility check, the data are shown where they
belong, markup in the data stays text, and bad input is refused with the documented exit codes."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from vtgate.htmlsite.pages import file_href, gate_href


def build(run_vtgate, out: Path, *paths: Path, extra: tuple[str, ...] = ()) -> str:
    done = run_vtgate("report", "--html", str(out), *extra, *map(str, paths))
    assert done.returncode == 0, done.stderr
    return done.stderr


def test_the_site_has_every_page_type_and_every_page_passes_the_html_check(samples, run_vtgate, tmp_path,
                                                                          html_problems):
    site = tmp_path / "site"
    said = build(run_vtgate, site, samples.check, samples.perf, samples.code, samples.mutate, samples.envdoc,
                 samples.bisect)
    assert "wrote" in said and "index.html" in said
    names = {str(p.relative_to(site)) for p in site.rglob("*.html")}
    check = samples.load("check-red.json")
    code = samples.load("mutate-code.json")
    assert {"index.html", "history.html", "envdoc.html", "bisect-1.html", "mutants/index.html"} <= names
    assert {gate_href(g["name"]) for g in check["gates"]} <= names
    assert {file_href(path) for path in code["by_file"]} <= names
    assert html_problems(site) == {}


def test_the_declared_mutations_page_has_every_mutation_and_the_kill_matrix(samples, run_vtgate, tmp_path):
    site = tmp_path / "site"
    build(run_vtgate, site, samples.check, samples.mutate)
    page = (site / "mutants" / "index.html").read_text()
    report = samples.load("mutate.json")
    for mutation in report["mutations"]:
        assert f"<td>{mutation['name']}</td>" in page
    matrix = page[page.index('id="kill-matrix"'):]
    for gate, killers in report["kills"].items():
        assert f'<a href="../{gate_href(gate)}">{gate}</a></td><td>{", ".join(killers)}</td>' in matrix
    assert "partial run: the gate selection left out" in page


def test_the_overview_lists_every_gate_with_its_status_and_the_goldens_provenance(samples, run_vtgate, tmp_path):
    site = tmp_path / "site"
    build(run_vtgate, site, samples.check, samples.perf)
    index = (site / "index.html").read_text()
    gates = samples.load("check-red.json")["gates"] + samples.load("perf-check.json")["gates"]
    for gate in gates:
        assert f'data-gate="{gate["name"]}"' in index
        assert f'class="gate-link gate-{gate["status"]}" data-gate="{gate["name"]}"' in index
    blessed = json.loads(Path(gates[0]["golden"]).read_text())["provenance"]
    assert f"at {blessed['commit'][:10]}" in index  # read from the golden file the report names


def test_a_red_anchor_gate_shows_its_first_divergent_step_with_both_streams_and_the_margins(
        samples, run_vtgate, tmp_path):
    site = tmp_path / "site"
    build(run_vtgate, site, samples.check)
    gate = next(g for g in samples.load("check-red.json")["gates"] if g["name"] == "decode-bench-anchor")
    first = next(i for i, (a, b) in enumerate(zip(gate["pinned"]["tokens"], gate["measured"]["tokens"], strict=False))
                 if a != b)
    page = (site / gate_href(gate["name"])).read_text()
    section = page[page.index('<section id="divergence">'):]
    assert (f"First divergent step: position {first}, token {gate['pinned']['tokens'][first]} (golden) -&gt; "
            f"{gate['measured']['tokens'][first]} (measured)") in section
    row = re.search(r"<th scope=\"row\">measured margin</th>(.*?)</tr>", section)
    assert row and f"{gate['measured']['margins'][first]:.4g}" in row.group(1)
    assert section.count('class="tok diff first"') == 2  # the golden and the measured token at that step


def test_a_red_golden_whose_tokens_hold_shows_where_the_margins_first_moved(samples, run_vtgate, tmp_path):
    site = tmp_path / "site"
    build(run_vtgate, site, samples.check)
    gate = next(g for g in samples.load("check-red.json")["gates"] if g["name"] == "argmax-chain-fox")
    page = (site / gate_href(gate["name"])).read_text()
    golden, measured = gate["pinned"]["margins"], gate["measured"]["margins"]
    first = next(i for i, (a, b) in enumerate(zip(golden, measured, strict=False)) if a != b)
    assert f"Tokens all hold; first margin change at position {first}: {golden[first]:.4g}" in page


def test_a_perf_gate_has_its_interval_and_a_point_per_timed_leg(samples, run_vtgate, tmp_path):
    site = tmp_path / "site"
    build(run_vtgate, site, samples.perf)
    for gate in samples.load("perf-check.json")["gates"]:
        page = (site / gate_href(gate["name"])).read_text()
        m = gate["measured"]
        assert f"interval [{m['low']:.3f}, {m['high']:.3f}]" in page
        timed = [v for v in m["values"] if v["round"] is not None]
        assert page.count("<title>leg ") == len(timed)


def test_the_mutation_page_colours_each_mutated_line_and_shows_every_survivors_diff(samples, run_vtgate, tmp_path):
    site = tmp_path / "site"
    build(run_vtgate, site, samples.code)
    mutants = samples.load("mutate-code.json")["mutants"]
    survivors = [m for m in mutants if m["status"] == "survived"]
    assert survivors, "the sample needs a survivor"
    for m in mutants:
        page = (site / file_href(m["file"])).read_text()
        row = re.search(rf'<tr class="(m-[a-z]+)" id="L{m["line"]}"', page)
        assert row, m["id"]
        want = "m-survived" if any(o["status"] == "survived" and o["file"] == m["file"] and o["line"] == m["line"]
                                   for o in mutants) else None
        if want:
            assert row.group(1) == want
        if m["status"] == "survived":
            added = next(line for line in m["diff"].splitlines() if line.startswith("+") and not line.startswith("+++"))
            survivors_part = page[page.index('id="survivors"'):page.index("<h2>Source</h2>")]
            assert added.replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;") in survivors_part


def test_the_bisection_graph_has_every_commit_of_the_range_merges_included_and_marks_the_culprit(
        samples, run_vtgate, tmp_path):
    site = tmp_path / "site"
    build(run_vtgate, site, samples.bisect)
    page = (site / "bisect-1.html").read_text()
    report = samples.load("bisect.json")
    (culprit,) = report["culprits"]
    drawn = re.findall(r'data-commit="([0-9a-f]{40})"', page)
    assert len(drawn) == 10  # GOOD and the 9 commits of GOOD..BAD: the topic branch and its merge
    assert re.findall(r'class="commit culprit" data-commit="([0-9a-f]{40})"', page) == [culprit["commit"]]
    assert page.count('transform="rotate(45') >= 1  # the merge, drawn as a diamond
    for label, ref in culprit["proof"].items():
        assert f'href="#step-{ref.split()[-1]}"' in page and label in page


def test_without_the_repository_the_graph_falls_back_to_the_judged_commits_and_says_so(samples, run_vtgate,
                                                                                      tmp_path):
    report = samples.load("bisect.json")
    report["recipe"]["repo"] = str(tmp_path / "gone")
    site = tmp_path / "site"
    build(run_vtgate, site, samples.write("gone.json", report))
    page = (site / "bisect-1.html").read_text()
    assert len(set(re.findall(r'data-commit="([0-9a-f]{40})"', page))) == len({s["commit"] for s in report["steps"]})
    assert "could not be read here" in page


def test_markup_in_a_commit_subject_a_gate_name_and_a_path_stays_text(samples, run_vtgate, tmp_path, html_problems):
    evil = '<script>alert("x")</script>'
    check = samples.load("check-red.json")
    check["gates"][0]["name"] = f"gate {evil}"
    check["gates"][0]["summary"] = f"summary {evil}"
    bisect = samples.load("bisect.json")
    bisect["recipe"]["repo"] = str(samples.repo)
    bisect["culprits"][0]["subject"] = f"subject {evil}"
    code = samples.load("mutate-code.json")
    code["mutants"][0]["description"] = f"mutant {evil}"
    site = tmp_path / "site"
    build(run_vtgate, site, samples.write("evil-check.json", check), samples.write("evil-bisect.json", bisect),
          samples.write("evil-code.json", code))
    text = "".join(p.read_text() for p in site.rglob("*.html"))
    assert "<script" not in text
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in text
    assert (site / gate_href(f"gate {evil}")).is_file()  # the page of a gate named so has a safe file name
    assert html_problems(site) == {}


def test_markup_in_a_real_commit_subject_read_from_git_stays_text(samples, run_vtgate, tmp_path, html_problems):
    evil = '<script>alert("x")</script> & <b>bold</b>'
    repo = tmp_path / "evil-repo"
    repo.mkdir()
    for args in (["init", "-q", "-b", "main"], ["config", "user.email", "t@example.com"], ["config", "user.name", "T"],
                 ["commit", "-q", "--allow-empty", "-m", "fine"], ["commit", "-q", "--allow-empty", "-m", evil]):
        subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, timeout=60)
    good, bad = (subprocess.run(["git", "-C", str(repo), "rev-parse", rev], check=True, capture_output=True, text=True,
                                timeout=60).stdout.strip() for rev in ("HEAD~1", "HEAD"))
    report = samples.load("bisect.json")
    step = report["steps"][0]
    report.update(good=good, bad=bad, range=f"{good}..{bad}", candidates=1,
                  steps=[{**step, "commit": bad, "verdict": "bad", "number": 1},
                         {**step, "commit": good, "verdict": "good", "number": 2}],
                  culprits=[{**report["culprits"][0], "commit": bad, "subject": evil, "parent": good,
                             "candidates": [bad], "proof": {"parent_green": "step 2", "culprit_red": "step 1"}}])
    report["recipe"]["repo"] = str(repo)
    site = tmp_path / "site"
    build(run_vtgate, site, samples.write("evil-git.json", report))
    page = (site / "bisect-1.html").read_text()
    assert "<script" not in page and "<b>bold" not in page
    assert page.count("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;") >= 3
    assert html_problems(site) == {}


def test_a_report_that_does_not_match_its_schema_is_refused_naming_the_file_and_field(samples, run_vtgate,
                                                                                     tmp_path):
    check = samples.load("check-red.json")
    check["gates"][0]["status"] = "purple"
    done = run_vtgate("report", "--html", str(tmp_path / "site"), str(samples.write("bad.json", check)))
    said = " ".join(done.stderr.split())
    assert done.returncode == 2
    assert "bad.json: not a valid vtgate check --json report" in said and "at gates/0/status: 'purple'" in said
    assert not (tmp_path / "site").exists()


def test_a_file_that_is_no_report_and_a_missing_file_are_usage_errors(samples, run_vtgate, tmp_path):
    other = samples.write("other.json", {"hello": 1})
    done = run_vtgate("report", "--html", str(tmp_path / "site"), str(other))
    assert done.returncode == 2 and "is not a report vtgate report reads" in " ".join(done.stderr.split())
    done = run_vtgate("report", "--html", str(tmp_path / "site"), str(tmp_path / "nope.json"))
    assert done.returncode == 2 and "cannot read" in done.stderr


def test_nothing_to_build_is_exit_5(run_vtgate, tmp_path):
    done = run_vtgate("report", "--html", str(tmp_path / "site"))
    assert done.returncode == 5 and "nothing to build" in done.stderr
    done = run_vtgate("report", "--html", str(tmp_path / "site"), "--history", str(tmp_path / "empty"))
    assert done.returncode == 5


def test_an_output_folder_with_other_files_is_never_overwritten(samples, run_vtgate, tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    done = run_vtgate("report", "--html", str(out), str(samples.envdoc))
    assert done.returncode == 2 and "other files in it" in " ".join(done.stderr.split())
    assert (out / "notes.txt").read_text() == "keep me"
    site = tmp_path / "site"
    build(run_vtgate, site, samples.envdoc)
    build(run_vtgate, site, samples.envdoc)  # its own earlier site is replaced
    assert (site / "envdoc.html").is_file()


def test_history_accumulates_one_entry_per_run_and_marks_a_perf_regression_with_its_commit(
        samples, run_vtgate, tmp_path, html_problems):
    history = tmp_path / "history-runs"
    base = samples.load("perf-check.json")
    ratios = [(1.02, "green"), (1.01, "green"), (0.70, "red"), (0.71, "red")]
    commits = [f"{i:x}" * 40 for i in range(10, 14)]
    for (ratio, status), commit in zip(ratios, commits, strict=True):
        report = json.loads(json.dumps(base))
        gate = report["gates"][0]
        gate["status"] = status
        gate["measured"].update(ratio=ratio, low=ratio - 0.02, high=ratio + 0.02)
        site = tmp_path / "site"
        build(run_vtgate, site, samples.write("run.json", report), extra=("--history", str(history), "--commit", commit))
    entries = sorted(history.glob("*.json"))
    assert sorted(e.name.rsplit("-", 1)[1].removesuffix(".json") for e in entries) == [c[:12] for c in commits]
    page = (site / "history.html").read_text()
    assert page.count('class="regression"') == 1
    assert f"regression at {commits[2][:10]}" in page  # red after a green run, marked with its commit
    gate_page = (site / gate_href(base["gates"][0]["name"])).read_text()
    assert "Trend across runs" in gate_page
    assert html_problems(site) == {}
    # a build from the history alone (no new reports) shows the newest run and adds nothing
    site2 = tmp_path / "site2"
    build(run_vtgate, site2, extra=("--history", str(history)))
    assert len(list(history.glob("*.json"))) == 4
    assert f"regression at {commits[2][:10]}" in (site2 / "history.html").read_text()
    # a newer run without those gates: they stay in the history, named but not linked to missing pages
    site3 = tmp_path / "site3"
    build(run_vtgate, site3, samples.envdoc, extra=("--history", str(history), "--commit", "e" * 40))
    assert "decode-perf-fake" in (site3 / "history.html").read_text()
    assert html_problems(site3) == {}


def test_a_history_entry_that_is_edited_into_nonsense_is_refused(samples, run_vtgate, tmp_path):
    history = tmp_path / "runs"
    build(run_vtgate, tmp_path / "site", samples.envdoc, extra=("--history", str(history), "--commit", "a" * 40))
    (entry,) = history.glob("*.json")
    data = json.loads(entry.read_text())
    data["reports"]["envdoc"]["ok"] = "yes"
    entry.write_text(json.dumps(data))
    done = run_vtgate("report", "--html", str(tmp_path / "site"), "--history", str(history))
    assert done.returncode == 2 and "(reports.envdoc): not a valid vtgate envdoc" in " ".join(done.stderr.split())
