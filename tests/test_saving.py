"""Issue 26, cause 1: saving is safe against planted links and concurrent writers.

``save`` writes a uniquely named temporary file (``O_CREAT | O_EXCL``) in the target's
folder, flushes it to disk and renames it over the target. So a symbolic link planted
at a predictable temporary name is never followed, and any number of threads or
processes saving to one path (while others load it) leave one complete file: every
load returns one of the models saved, equal to it. A directory is no file to save to.
"""

from __future__ import annotations

import multiprocessing
import os
import stat
import threading

import numpy as np
import pandas as pd
import pytest
from conftest import expect, tiny_frame

import treelearn as tl

ASIA = pd.read_csv("datasets/asia.csv")


def models(k: int) -> list[tl.TreeModel]:
    """``k`` different models (different roots: different CPTs)."""
    return [tl.chow_liu(ASIA.head(200 + 50 * i), root="asia") for i in range(k)]


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
def test_a_planted_temporary_link_is_never_followed(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    path = tmp_path / "m.json"
    for name in ("m.json.tmp", ".m.json.tmp"):  # the old fixed name, and a guess at the new
        os.symlink(victim, tmp_path / name)
    model = models(1)[0]
    tl.save(model, path)
    assert victim.read_text() == "precious"  # was overwritten with the model's JSON
    assert tl.load(path) == model
    assert os.path.islink(tmp_path / "m.json.tmp")  # left alone
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        ".m.json.tmp",
        "m.json",
        "m.json.tmp",
        "victim.txt",
    ]


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
def test_saving_over_a_link_replaces_the_link_not_its_target(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    os.symlink(victim, tmp_path / "m.json")
    tl.save(models(1)[0], tmp_path / "m.json")
    assert victim.read_text() == "precious"
    assert not os.path.islink(tmp_path / "m.json")


def test_a_saved_file_has_the_usual_permissions_and_keeps_its_own(tmp_path):
    path = tmp_path / "m.json"
    model = models(1)[0]
    tl.save(model, path)
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o666 & ~mask  # as open(path, "w") gives
    os.chmod(path, 0o640)
    tl.save(model, path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640


def test_a_failed_save_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    path = tmp_path / "m.json"
    old, new = models(2)
    tl.save(old, path)
    with pytest.raises(tl.TreelearnError):
        tl.save(object(), path)  # refused before anything is written

    def disk_full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(OSError, match="No space"):
        tl.save(new, path)  # fails after the temporary file was written
    monkeypatch.undo()
    assert tl.load(path) == old
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.json"]


def test_threads_saving_and_loading_one_path(tmp_path):
    """16 threads x 15 saves to one path, readers loading all the while: no
    FileNotFoundError (one writer renaming another's temporary file away) and no
    truncated read; the file left is one of the models, whole."""
    path = tmp_path / "m.json"
    candidates = models(4)
    tl.save(candidates[0], path)
    errors: list[BaseException] = []
    loaded: list[tl.TreeModel] = []
    stop = threading.Event()

    def writer(i: int) -> None:
        try:
            for j in range(15):
                tl.save(candidates[(i + j) % len(candidates)], path)
        except BaseException as exc:  # collected: a thread's exception is otherwise lost
            errors.append(exc)

    def reader() -> None:
        try:
            while not stop.is_set():
                loaded.append(tl.load(path))
        except BaseException as exc:
            errors.append(exc)

    readers = [threading.Thread(target=reader) for _ in range(2)]
    writers = [threading.Thread(target=writer, args=(i,)) for i in range(16)]
    for t in readers + writers:
        t.start()
    for t in writers:
        t.join()
    stop.set()
    for t in readers:
        t.join()
    assert errors == []
    assert loaded and all(m in candidates for m in loaded)
    assert tl.load(path) in candidates
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.json"]


def _save_many(args: tuple) -> int:
    path, seed = args
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(rng.integers(0, 2, (50, 3)), columns=["a", "b", "c"])
    model = tl.chow_liu(df, root="a")
    for _ in range(10):
        tl.save(model, path)
        tl.load(path)  # whatever process wrote it last, it loads whole
    return seed


def test_processes_saving_to_one_path(tmp_path):
    path = str(tmp_path / "m.json")
    # fork where there is one (a spawned interpreter imports pandas again: seconds)
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    with multiprocessing.get_context(method).Pool(3) as pool:
        assert sorted(pool.map(_save_many, [(path, s) for s in range(6)])) == list(range(6))
    rng_models = []
    for seed in range(6):
        rng = np.random.default_rng(seed)
        df = pd.DataFrame(rng.integers(0, 2, (50, 3)), columns=["a", "b", "c"])
        rng_models.append(tl.chow_liu(df, root="a"))
    assert tl.load(path) in rng_models
    assert sorted(os.listdir(tmp_path)) == ["m.json"]


@pytest.mark.parametrize("bad", [None, 123, 1.5, b"m.json", ["m.json"], ""])
def test_a_path_that_is_no_file_name_is_an_input_type_error(bad):
    model = models(1)[0]
    with pytest.raises(tl.InputTypeError, match="must be a path"):
        tl.save(model, bad)
    with pytest.raises(tl.InputTypeError, match="must be a path"):
        tl.load(bad)
    with pytest.raises(tl.InputTypeError, match="must be a path"):
        model.save(bad)


def test_loading_a_directory_says_so(tmp_path):
    with pytest.raises(tl.ModelFileError, match="is a directory"):
        tl.load(tmp_path)


# ---------------------------------------------------------------------------------- hostile inputs
TINY = tiny_frame()  # four rows: text, numbers, booleans


def test_save_to_a_directory_leaves_no_tmp(tmp_path):
    target = tmp_path / "dir"
    target.mkdir()
    expect(tl.ModelFileError, "directory", tl.chow_liu(TINY).save, target)
    assert not os.path.exists(str(target) + ".tmp")
