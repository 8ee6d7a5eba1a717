"""Issues 39 (item 4) and 40 (item 1): reading options checked before pandas sees them,
encodings found from the bytes, decimal commas found with semicolons, every path-taking
learner reading a file as ``read_data`` and ``learn`` do, ``--categorical``, ``predict
--unseen``, ``--numeric auto --missing``, and hints that name every column they mean.

Each finding in Python (``tl.read_data``), on the command line in-process (fast), and through
the installed ``treelearn`` command (slow)."""

from __future__ import annotations

import io
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from conftest import run_cli

import treelearn as tl
from treelearn.sources._dialect import EncodingNote, sniff_encoding

TEXT = "a,b\nx,1\ny,2\nx,3\n"
EXPECTED = pd.DataFrame({"a": ["x", "y", "x"], "b": [1, 2, 3]})
SEMICOLON = "wage;education;sex\n5,1;12;M\n4,95;9;F\n6,67;12;F\n4;12;M\n7,5;16;M\n6,25;9;F\n"
WAGES = [5.1, 4.95, 6.67, 4.0, 7.5, 6.25]  # the file's numbers, by hand


_run = run_cli  # the command line in this process


# ------------------------------------------------------------------ options checked
BAD_OPTIONS = [
    ({"encoding": "nope"}, "encoding='nope'"),
    ({"encoding": "rot13"}, "encoding='rot13'"),
    ({"encoding": "base64"}, "encoding='base64'"),
    ({"sep": ""}, "sep=''"),
    ({"sep": "ab"}, "sep='ab'"),
    ({"sep": "\n"}, "sep='\\\\n'"),
    ({"decimal": ""}, "decimal=''"),
    ({"decimal": ".."}, "decimal='..'"),
    ({"thousands": ""}, "thousands=''"),
    ({"sep": 1}, "sep=1"),
    ({"encoding": b"utf-8"}, "encoding=b'utf-8'"),
    ({"thousands": ["x"]}, "thousands=\\['x'\\]"),
    ({"thousands": ",", "decimal": ","}, "1,5 would read as 15"),
    ({"sep": ";", "decimal": ";"}, "same character"),
    ({"decimal": "5"}, "a digit or sign"),
    ({"quotechar": ""}, "quotechar=''"),
]


@pytest.mark.parametrize(("options", "named"), BAD_OPTIONS)
def test_a_bad_reading_option_is_one_error_naming_the_argument(tmp_path, options, named):
    path = tmp_path / "d.csv"
    path.write_text(TEXT)
    with pytest.raises(tl.TreelearnError, match=named):
        tl.read_data(path, **options)
    with pytest.raises(tl.TreelearnError, match=named):  # a stream too: checked first
        tl.read_data(io.StringIO(TEXT), **options)


CLI_BAD = [
    (["--encoding", "nope"], "--encoding nope"),
    (["--encoding", "rot13"], "--encoding rot13"),
    (["--sep", "ab"], "--sep ab"),
    (["--decimal", ",", "--thousands", ","], "1,5 would read as 15"),
    (["--decimal", ".."], "--decimal .."),
]


@pytest.mark.parametrize(("flags", "named"), CLI_BAD)
@pytest.mark.parametrize("command", ["learn", "score", "predict", "explain"])
def test_every_command_names_the_bad_flag_in_one_line(tmp_path, flags, named, command):
    path = tmp_path / "d.csv"
    path.write_text(TEXT)
    model = [] if command == "learn" else [tmp_path / "absent.json"]
    rc, out, err = _run(command, *model, path, *flags)
    assert rc == 1 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("treelearn: error: ") and named in lines[0]
    assert not any(f"{name}=" in lines[0] for name in ("encoding", "sep", "decimal", "thousands"))


# ------------------------------------------------------------------ encodings
@pytest.mark.parametrize(
    "encoding",
    ["utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "utf-32-be", "utf-8-sig"],
)
def test_utf16_and_utf32_with_and_without_a_byte_order_mark(tmp_path, encoding):
    path = tmp_path / "u.csv"
    path.write_bytes(TEXT.encode(encoding))  # "utf-16"/"utf-32"/"utf-8-sig" write a BOM
    pd.testing.assert_frame_equal(tl.read_data(path), EXPECTED, check_dtype=False)
    # the learners read it alike: counts of the Chow-Liu tree equal those of the frame
    assert tl.chow_liu(path).log_likelihood(EXPECTED) == pytest.approx(
        tl.chow_liu(EXPECTED).log_likelihood(EXPECTED)
    )
    rc, out, err = _run("learn", path)
    assert rc == 0, err
    assert "a (2 states)" in out and "b (3 states)" in out


def test_sniffed_encodings_by_hand():
    assert sniff_encoding("é,1\n".encode("utf-16-le")) == ("utf-16-le", None)
    assert sniff_encoding("é,1\n".encode("utf-32-be")) == ("utf-32-be", None)
    assert sniff_encoding("é,1\n".encode()) == ("utf-8", None)
    # 0x81 is undefined in Windows-1252: Latin-1, which decodes every byte
    assert sniff_encoding(b"\x81\xe9,1\n")[0] == "latin-1"
    # binary bytes are not text in any single-byte encoding: refused as not UTF-8
    assert sniff_encoding(b"\x1f\x8b\x08\x00\xff")[0] == "utf-8"


def test_a_latin1_file_is_read_as_cp1252_with_a_note(tmp_path):
    path = tmp_path / "latin.csv"
    path.write_bytes("a,b\nété,1\nnaïve,2\n".encode("latin-1"))
    with pytest.warns(EncodingNote, match="read as cp1252"):
        df = tl.read_data(path)
    assert df["a"].tolist() == ["été", "naïve"]
    rc, _, err = _run("learn", path, "-o", tmp_path / "m.json")
    assert rc == 0 and "read as cp1252" in err and "--encoding says otherwise" in err
    assert sorted(tl.load(tmp_path / "m.json").states["a"]) == ["naïve", "été"]


def test_bytes_that_are_not_utf8_past_the_first_64kib_name_the_option(tmp_path):
    path = tmp_path / "late.csv"
    path.write_bytes(b"a,b\n" + b"x,1\n" * 20_000 + "é,2\n".encode("latin-1"))
    with pytest.raises(tl.DataFileError, match="encoding='cp1252'"):
        tl.read_data(path)
    rc, _, err = _run("learn", path)
    assert rc == 1 and "--encoding" in err and "encoding=" not in err
    df = tl.read_data(path, encoding="latin-1")
    assert df["a"].iloc[-1] == "é"


# ------------------------------------------------------------------ decimal commas
def test_decimal_commas_are_found_with_semicolons_and_read_by_every_reader(tmp_path):
    path = tmp_path / "semicolon.csv"
    path.write_text(SEMICOLON)
    df = tl.read_data(path)
    assert df.columns.tolist() == ["wage", "education", "sex"]
    assert df["wage"].tolist() == WAGES
    # the path-taking learners read it as read_data does (not one column 'wage;education;sex')
    whole = tl.clg_tree(df)
    from_path = tl.clg_tree(path)
    assert from_path.log_likelihood(df) == pytest.approx(whole.log_likelihood(df))
    discrete = df.drop(columns=["wage"])
    tree = tl.chow_liu(discrete)
    (tmp_path / "d.csv").write_text(
        "education;sex\n" + "".join(f"{e};{s}\n" for e, s in discrete.itertuples(index=False))
    )
    assert tl.chow_liu(tmp_path / "d.csv").log_likelihood(discrete) == pytest.approx(
        tree.log_likelihood(discrete)
    )
    # an explicit decimal point is kept: the column stays text
    assert tl.read_data(path, decimal=".")["wage"].tolist()[0] == "5,1"


def test_decimal_commas_are_said_on_stderr(tmp_path):
    path = tmp_path / "semicolon.csv"
    path.write_text(SEMICOLON)
    rc, out, err = _run("learn", path, "--numeric", "auto", "-o", tmp_path / "m.json")
    assert rc == 0, err
    assert "decimal commas (5,1) in column(s) ['wage']" in err and "--decimal" in err
    assert "separated by semicolons" in err
    assert "1 Gaussian" in out


def test_thousands_dots_with_decimal_commas(tmp_path):
    path = tmp_path / "euro.csv"
    path.write_text("p;q\n1.234,5;a\n12,25;b\n2.000.000,75;a\n")
    assert tl.read_data(path)["p"].tolist() == [1234.5, 12.25, 2000000.75]  # by hand


# ------------------------------------------------------------------ categorical
def test_categorical_keeps_the_text_as_read(tmp_path):
    path = tmp_path / "zip.csv"
    path.write_text("zip,y\n02139,a\n10001,b\n02139,a\n00501,b\n")
    assert tl.read_data(path)["zip"].tolist()[0] == 2139  # pandas' default, for contrast
    assert tl.read_data(path, categorical=["zip"])["zip"].tolist() == [
        "02139",
        "10001",
        "02139",
        "00501",
    ]
    with pytest.raises(tl.TreelearnError, match="categorical="):
        tl.read_data(path, categorical="zip")
    rc, _, err = _run("learn", path, "--categorical", "zip", "-o", tmp_path / "m.json")
    assert rc == 0, err
    assert sorted(tl.load(tmp_path / "m.json").states["zip"]) == ["00501", "02139", "10001"]
    rc, _, err = _run("learn", path, "--categorical", "nozip")
    assert rc == 1 and "--categorical nozip" in err


# ------------------------------------------------------------------ predict --unseen
def test_predict_unseen_ignore(tmp_path):
    rng = np.random.default_rng(0)
    train = pd.DataFrame({"f": rng.choice(["a", "b"], 40), "g": rng.choice(["u", "v"], 40)})
    train["y"] = np.where(train["f"] == "a", "yes", "no")
    train.to_csv(tmp_path / "train.csv", index=False)
    rc, _, err = _run(
        "learn", tmp_path / "train.csv", "--class", "y", "--method", "naive-bayes", "-o",
        tmp_path / "nb.json",
    )  # fmt: skip
    assert rc == 0, err
    test = pd.DataFrame({"f": ["a", "new"], "g": ["u", "v"]})
    test.to_csv(tmp_path / "test.csv", index=False)
    rc, _, err = _run("predict", tmp_path / "nb.json", tmp_path / "test.csv")
    assert rc == 1 and "--unseen ignore" in err and "unseen='ignore'" not in err
    rc, out, err = _run("predict", tmp_path / "nb.json", tmp_path / "test.csv", "--unseen", "ignore", "--proba")  # fmt: skip
    assert rc == 0, err
    # the unseen cell is summed out: the row's posterior equals that of 'g' alone
    clf = tl.load(tmp_path / "nb.json")
    expected = clf.set_params(unseen="ignore").predict_proba(test)
    got = pd.read_csv(io.StringIO(out)).to_numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-5)
    alone = clf.predict_proba(pd.DataFrame({"f": [None], "g": ["v"]}))
    np.testing.assert_allclose(got[1], alone[0], rtol=1e-5)


def test_predict_names_categorical_for_a_column_learned_as_text(tmp_path):
    # a column of whole numbers learned as states with --categorical is text in the model;
    # read without the flag it is numbers, and the error names the flag that reads it as text
    rng = np.random.default_rng(2)
    df = pd.DataFrame({"code": rng.integers(0, 3, 60), "y": rng.choice(["p", "q"], 60)})
    df.to_csv(tmp_path / "d.csv", index=False)
    model = tmp_path / "nb.json"
    argv = ("--class", "y", "--method", "naive-bayes", "--categorical", "code", "-o", model)
    rc, _, err = _run("learn", tmp_path / "d.csv", *argv)
    assert rc == 0, err
    assert sorted(tl.load(model).model_.states["code"]) == ["0", "1", "2"]
    rc, _, err = _run("predict", model, tmp_path / "d.csv")
    assert rc == 1
    assert "read it as text, as it was learned, with --categorical code" in err
    assert "give states of the data's type" not in err  # Python's words, not the command's
    rc, out, err = _run("predict", model, tmp_path / "d.csv", "--categorical", "code")
    assert rc == 0, err
    text = tl.load(model).predict(df[["code"]].astype(str))
    assert pd.read_csv(io.StringIO(out))["y"].tolist() == list(text)


def test_an_unseen_state_error_keeps_its_type_fix_through_pickling():
    # Dask workers send errors back pickled: the command's words must survive the trip
    import pickle

    err = tl.UnseenStateError("c", [1], ["1"], dtype="int64").with_hint("H.", type_fix="F")
    back = pickle.loads(pickle.dumps(err))
    assert str(back) == str(err) and "str: F. H." in str(back)


# ------------------------------------------------------------------ --missing
def gappy_table(tmp_path) -> pd.DataFrame:
    """A table with gaps written to ``tmp_path / "m.csv"``: numbers ``x`` missing once, a
    column ``sparse`` missing 9 rows in 10 (the command-line tests of ``--missing`` read it)."""
    rng = np.random.default_rng(1)
    n = 60
    df = pd.DataFrame(
        {
            "x": rng.normal(size=n).round(3),
            "c": rng.choice(["p", "q"], n),
            "sparse": np.where(np.arange(n) % 10 == 0, "k", None),
        }
    )
    df.loc[3, "x"] = np.nan
    df.to_csv(tmp_path / "m.csv", index=False)
    return df


def test_numeric_auto_honours_missing_and_drop_names_the_columns(tmp_path):
    gappy_table(tmp_path)
    rc, out, err = _run("learn", tmp_path / "m.csv", "--numeric", "auto", "--missing", "pairwise")
    assert rc == 0, err
    python = tl.clg_tree(tl.read_data(tmp_path / "m.csv"), missing="pairwise")
    assert python.to_text() in out
    rc, out, err = _run("learn", tmp_path / "m.csv", "--drop", "x", "--missing", "drop")
    assert rc == 0, err
    # 54 rows lack 'sparse', and row 3 lacks 'x' (dropped) : 54 of 60 rows dropped
    assert "dropping 54 of 60 row(s)" in err and "'sparse' (54 rows)" in err
    assert "--drop sparse" in err


def test_every_continuous_column_is_named_and_the_mixed_tree_comes_first(tmp_path):
    rng = np.random.default_rng(2)
    n = 40
    df = pd.DataFrame({f"v{j}": rng.normal(size=n) for j in range(11)})
    df["g"] = rng.choice(["a", "b"], n)
    df.to_csv(tmp_path / "wide.csv", index=False)
    rc, _, err = _run("learn", tmp_path / "wide.csv")
    assert rc == 1
    assert "--drop " + " ".join(f"v{j}" for j in range(11)) in err
    assert err.index("--numeric auto") < err.index("--discretize")
    # too many to type: no --drop naming some of them, the flags that take them all
    df = pd.DataFrame({f"w{j}": rng.normal(size=n) for j in range(13)})
    df.to_csv(tmp_path / "wider.csv", index=False)
    rc, _, err = _run("learn", tmp_path / "wider.csv")
    assert rc == 1 and "--drop" not in err and "--numeric gaussian" in err


# ------------------------------------------------------------------ the installed command
def _installed(*argv, cwd):
    command = os.path.join(os.path.dirname(sys.executable), "treelearn")
    return subprocess.run(
        [command, *map(str, argv)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
        env={**os.environ, "MPLBACKEND": "Agg"},
    )


@pytest.mark.slow
def test_the_installed_command(tmp_path):
    (tmp_path / "d.csv").write_text(TEXT)
    proc = _installed("learn", "d.csv", "--encoding", "nope", cwd=tmp_path)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines() == [
        "treelearn: error: --encoding nope is not a text encoding Python knows: give one "
        "such as --encoding utf-8 or --encoding latin-1"
    ]
    (tmp_path / "semicolon.csv").write_text(SEMICOLON)
    proc = _installed("learn", "semicolon.csv", "--numeric", "auto", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "decimal commas (5,1) in column(s) ['wage']" in proc.stderr
    (tmp_path / "u16.csv").write_bytes(TEXT.encode("utf-16-le"))
    proc = _installed("learn", "u16.csv", cwd=tmp_path)
    assert proc.returncode == 0 and "a (2 states)" in proc.stdout, proc.stderr
    (tmp_path / "latin.csv").write_bytes("a,b\nété,1\nnaïve,2\n".encode("latin-1"))
    proc = _installed("learn", "latin.csv", cwd=tmp_path)
    assert proc.returncode == 0 and "read as cp1252" in proc.stderr
    (tmp_path / "zip.csv").write_text("zip,y\n02139,a\n10001,b\n02139,a\n00501,b\n")
    proc = _installed("learn", "zip.csv", "--categorical", "zip", "-o", "m.json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "02139" in tl.load(tmp_path / "m.json").states["zip"]


# ------------------------------------------------------------------ dates
def test_us_and_day_first_dates_when_unambiguous():
    from treelearn.sources._reading import ambiguous_date_columns, as_dates, date_columns

    df = pd.DataFrame(
        {
            "us": ["12/26/2021", "01/02/2022", None],
            "eu": ["26.12.2021", "01.02.2022", "03.04.2022"],
            "both": ["03/04/2021", "01/02/2022", "05/06/2022"],
            "iso": ["2021-12-26", "2022-01-02", "2022-04-03"],
            "bad": ["13/13/2021", "01/02/2022", "01/02/2022"],  # no date either way
        }
    )
    assert date_columns(df) == ["us", "eu", "iso"]
    dated = as_dates(df, ["us", "eu"])
    # by hand: 12/26/2021 is 26 December (US); 01/02/2022 then 2 January; 01.02.2022 1 February
    assert dated["us"].tolist()[:2] == [pd.Timestamp(2021, 12, 26), pd.Timestamp(2022, 1, 2)]
    assert dated["eu"].tolist() == [
        pd.Timestamp(2021, 12, 26),
        pd.Timestamp(2022, 2, 1),
        pd.Timestamp(2022, 4, 3),
    ]
    assert df["us"].tolist()[0] == "12/26/2021"  # the caller's frame unchanged
    (problem,) = ambiguous_date_columns(df)
    assert problem.column == "both" and "2021-03-04 or 2021-04-03" in str(problem)
    assert "pd.to_datetime(df['both'], dayfirst=True)" in str(problem)


def test_the_command_cuts_us_dates_and_refuses_ambiguous_ones(tmp_path):
    days = pd.date_range("2021-01-01", periods=24, freq="13D")
    us = pd.DataFrame({"when": days.strftime("%m/%d/%Y"), "g": ["a", "b", "b"] * 8})
    us.to_csv(tmp_path / "us.csv", index=False)
    rc, _, err = _run("learn", tmp_path / "us.csv", "--discretize", "3", "-o", tmp_path / "m.json")
    assert rc == 0, err
    # three quantile bins of time: 8 dates in each (24 distinct dates)
    model = tl.load(tmp_path / "m.json")
    assert len(model.states["when"]) == 3
    both = pd.DataFrame({"when": ["03/04/2021", "01/02/2022"] * 6, "g": ["a", "b", "b"] * 4})
    both.to_csv(tmp_path / "both.csv", index=False)
    rc, _, err = _run("learn", tmp_path / "both.csv")
    assert rc == 1 and "month/day and as day/month" in err and "--drop when" in err
    assert "pd.to_datetime" not in err  # the command's words, not Python's


def test_a_mixed_table_names_the_mixed_model_first_and_its_notes_in_flags(tmp_path):
    rng = np.random.default_rng(3)
    n = 60
    df = pd.DataFrame(
        {
            "species": rng.choice(["A", "G", "C"], n),
            "island": rng.choice(["x", "y"], n),
            "bill": rng.uniform(30, 50, n).round(1),
            "mass": rng.integers(3000, 6000, n),
        }
    )
    df.to_csv(tmp_path / "pen.csv", index=False)
    # a classifier's default (numbers="mdl") cuts the numeric columns into MDL bins, said
    # in a note; the advice to model them (a mixed TAN first, never --numeric gaussian,
    # which would drop island) is in_cli_words's (its doctest) where they are refused
    rc, _, err = _run("learn", tmp_path / "pen.csv", "--class", "species")
    assert rc == 0, err
    assert "cutting the numeric column(s) ['bill', 'mass'] into supervised (MDL) bins" in err
    assert "--categorical COL" in err and "--numeric gaussian" not in err
    # the CLG tree (no class) takes float columns as Gaussian: the whole-number column is
    # noted in flags
    rc, _, err = _run("learn", tmp_path / "pen.csv", "--numeric", "auto")
    assert rc == 0, err
    assert "column(s) ['mass'] hold many whole numbers" in err and "--numeric bill,mass" in err
    assert "tl.discretize" not in err and "Warning" not in err
    # the mixed TAN (--class) takes integer columns as numbers by dtype (as every
    # classifier): mass is a number, nothing to note (numbers="auto" cuts it into one MDL
    # bin, not its whole numbers as states: the class is drawn apart from it)
    rc, out, err = _run("learn", tmp_path / "pen.csv", "--numeric", "auto", "--class", "species")
    assert rc == 0, err
    assert "mass (1 MDL bin)" in out and "whole numbers" not in err and "Warning" not in err
    rc, _, err = _run("learn", tmp_path / "pen.csv", "--numeric", "bill,mass", "--class", "species")
    assert rc == 0 and "whole numbers" not in err


def test_compressed_files_are_sniffed_through_their_decompressor(tmp_path):
    import bz2
    import gzip
    import lzma

    for suffix, compress in (
        (".gz", gzip.compress),
        (".bz2", bz2.compress),
        (".xz", lzma.compress),
    ):
        path = tmp_path / f"semicolon.csv{suffix}"
        path.write_bytes(compress(SEMICOLON.encode("utf-16")))
        assert tl.read_data(path)["wage"].tolist() == WAGES
    (tmp_path / "junk.csv.gz").write_bytes(b"\x1f\x8b\x08\x00not gzip at all")
    with pytest.raises(tl.DataFileError, match="not readable compressed data"):
        tl.read_data(tmp_path / "junk.csv.gz")
    rc, _, err = _run("learn", tmp_path / "junk.csv.gz")
    assert rc == 1 and err.count("\n") == 1 and "compressed" in err
