# SPDX-License-Identifier: Apache-2.0
"""Unit tests without a server: option checks, defaults, the open request, launcher discovery."""

import os
import stat
import sys
import tempfile
import unittest
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
if os.environ.get("ZD_TEST_INSTALLED") != "1":
    sys.path.insert(0, os.path.dirname(HERE))

import torch  # noqa: E402

from zarr_direct import LauncherNotFound, _launch, _options  # noqa: E402
from zarr_direct._errors import LoaderOptionError, LoaderServerError, from_server  # noqa: E402


def request(**kw):
    args = dict(path="store.zarr", variables=["t2m", "u"], channels={"u": [0, 3]}, history=2, future=1, stride=1,
                batch_size=8, shuffle=True, seed=0, drop_last=True, time_range=(0, 8000), rank=0, world_size=1,
                normalize=None, dtype_name="float32", server_device="cpu", device_index=None, prefetch=4,
                backend="auto", time_dim=None, crop=None, nan=None, settings=None, memory_budget=None)
    args.update(kw)
    return _options.open_request(**args)


class OpenRequestTest(unittest.TestCase):

    def test_the_request_has_every_field_of_the_protocol(self):
        r = request(normalize={"t2m": (280, 5), "u": ([0.0, 1.0], [2.0, 3.0])}, settings={"zarrdirect.threads": 16,
                                                                                       "x": True})
        self.assertEqual(set(r), {"op", "path", "variables", "channels", "time_dim", "history", "future", "stride",
                                  "batch_size", "shuffle", "seed", "drop_last", "time_range", "crop", "rank",
                                  "world_size", "normalize", "dtype", "nan", "device", "device_index", "prefetch",
                                  "backend", "settings", "memory_budget"})
        self.assertEqual(r["path"], os.path.abspath("store.zarr"))
        self.assertEqual(r["time_range"], [0, 8000])
        self.assertEqual(r["normalize"], {"values": {"t2m": [280.0, 5.0], "u": [[0.0, 1.0], [2.0, 3.0]]}})
        self.assertEqual(r["settings"], {"zarrdirect.threads": "16", "x": "true"})

    def test_paths_are_made_absolute_but_urls_are_kept(self):
        self.assertEqual(request(path="https://host/era5.zarr")["path"], "https://host/era5.zarr")
        self.assertEqual(request(normalize="stats.json")["normalize"], {"file": os.path.abspath("stats.json")})

    def test_tensors_and_arrays_are_accepted_for_statistics(self):
        r = request(normalize={"u": (torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]))})
        self.assertEqual(r["normalize"]["values"]["u"], [[1.0, 2.0], [3.0, 4.0]])

    def test_wrong_options_are_clear_errors(self):
        cases = [
            (dict(history=0), "history must be at least 1"),
            (dict(future=-1), "future must be 0 or more"),
            (dict(stride=0), "stride"),
            (dict(batch_size=0), "batch_size"),
            (dict(prefetch=0), "prefetch"),
            (dict(variables=[]), "at least one variable"),
            (dict(variables=["a", "a"]), "more than once"),
            (dict(channels={"v": [0]}), "'v', which is not one of the variables"),
            (dict(time_range=(5, 5)), "empty"),
            (dict(time_range=(0,)), "time_range"),
            (dict(crop=(0, 10, 5, 5)), "crop"),
            (dict(backend="gpu"), "backend"),
            (dict(normalize={"t2m": (1.0, 0.0)}), "positive"),
            (dict(normalize={"t2m": ([1.0], [1.0, 2.0])}), "one length"),
            (dict(normalize={"zz": (1.0, 1.0)}), "'zz'"),
            (dict(memory_budget=0), "memory_budget"),
            (dict(nan=float("nan")), "nan"),
        ]
        for kw, message in cases:
            with self.subTest(kw=kw):
                with self.assertRaisesRegex(ValueError, message):
                    request(**kw)
        with self.assertRaises(TypeError):
            request(history=1.5)

    def test_a_single_variable_name_is_a_list_of_one(self):
        self.assertEqual(request(variables="t2m", channels=None)["variables"], ["t2m"])


class DefaultsTest(unittest.TestCase):

    def test_dtypes(self):
        self.assertEqual(_options.dtype_of(torch.bfloat16), (torch.bfloat16, "bfloat16"))
        self.assertEqual(_options.dtype_of("float16"), (torch.float16, "float16"))
        with self.assertRaises(ValueError):
            _options.dtype_of(torch.float64)

    def test_rank_and_world_size_come_from_the_environment(self):
        with mock.patch.dict(os.environ, {"RANK": "3", "WORLD_SIZE": "4"}):
            self.assertEqual(_options.rank_of(None, None), (3, 4))
            self.assertEqual(_options.rank_of(1, None), (1, 4))
        with mock.patch.dict(os.environ, {}, clear=True):
            self.assertEqual(_options.rank_of(None, None), (0, 1))
        with self.assertRaisesRegex(ValueError, "rank 2 is not in"):
            _options.rank_of(2, 2)

    def test_devices(self):
        self.assertEqual(_options.device_of("cpu"), torch.device("cpu"))
        with self.assertRaises(ValueError):
            _options.device_of("mps")
        if not torch.cuda.is_available():
            with self.assertRaisesRegex(ValueError, "is_available"):
                _options.device_of("cuda")
            self.assertEqual(_options.device_of(None), torch.device("cpu"))
        else:
            with mock.patch.dict(os.environ, {"LOCAL_RANK": "0"}):
                self.assertEqual(_options.device_of("cuda"), torch.device("cuda", 0))

    def test_the_server_sees_the_consumer_gpu_alone(self):
        with mock.patch.dict(os.environ, {"CUDA_VISIBLE_DEVICES": "3, GPU-abc,5"}):
            self.assertEqual(_options.visible_device(1), "GPU-abc")
            with self.assertRaises(ValueError):
                _options.visible_device(3)
        with mock.patch.dict(os.environ, {}, clear=True):
            self.assertEqual(_options.visible_device(2), "2")

    def test_server_errors_map_to_value_and_runtime_errors(self):
        e = from_server({"op": "error", "message": "no variable 'x'", "type": "IllegalArgumentException"})
        self.assertIsInstance(e, ValueError)
        self.assertIsInstance(e, LoaderOptionError)
        self.assertEqual(str(e), "no variable 'x'")
        e = from_server({"op": "error", "message": "chunk t2m/3.0.0 is corrupt", "type": "IOException"})
        self.assertIsInstance(e, RuntimeError)
        self.assertIsInstance(e, LoaderServerError)
        self.assertIn("chunk t2m/3.0.0 is corrupt", str(e))


class LaunchTest(unittest.TestCase):

    def test_an_explicit_command_comes_first(self):
        with mock.patch.dict(os.environ, {"ZARR_DIRECT_SERVER_COMMAND": "python3 -u server.py"}):
            launch = _launch.find_launch()
        self.assertEqual(launch.command(["loader-serve"]), ["python3", "-u", "server.py", "loader-serve"])

    def test_zarr_direct_home_names_a_launcher(self):
        with tempfile.TemporaryDirectory() as home:
            script = os.path.join(home, "zarr-direct")
            with open(script, "w") as f:
                f.write("#!/bin/sh\n")
            os.chmod(script, os.stat(script).st_mode | stat.S_IXUSR)
            with mock.patch.dict(os.environ, {"ZARR_DIRECT_HOME": home, "ZARR_DIRECT_SERVER_COMMAND": ""}):
                launch = _launch.find_launch()
        self.assertEqual(launch.argv, [script])
        self.assertTrue(launch.may_build)

    def test_jars_run_with_the_flags_and_main_class(self):
        with tempfile.TemporaryDirectory() as jars:
            for name in ("b.jar", "a.jar"):
                open(os.path.join(jars, name), "w").close()
            with mock.patch.dict(os.environ, {"ZARR_DIRECT_JARS": jars, "ZARR_DIRECT_HOME": "",
                                              "ZARR_DIRECT_SERVER_COMMAND": "", "ZARRDIRECT_JAVA_OPTS": "-Xmx1g"}), \
                    mock.patch.object(_launch, "find_java", return_value=("/jdk", "/jdk/bin/java", [])):
                launch = _launch.find_launch()
        argv = launch.command(["loader-serve"])
        self.assertEqual(argv[0], "/jdk/bin/java")
        for flag in _launch.JVM_FLAGS + ("-Xmx1g",):
            self.assertIn(flag, argv)
        self.assertEqual(argv[argv.index("-cp") + 1], os.pathsep.join([os.path.join(jars, "a.jar"),
                                                                       os.path.join(jars, "b.jar")]))
        self.assertEqual(argv[-2:], [_launch.MAIN_CLASS, "loader-serve"])

    def test_nothing_found_lists_what_was_tried(self):
        with tempfile.TemporaryDirectory() as empty:
            env = {"ZARR_DIRECT_SERVER_COMMAND": "", "ZARR_DIRECT_HOME": empty, "ZARR_DIRECT_JARS": empty}
            with mock.patch.dict(os.environ, env), \
                    mock.patch.object(_launch, "PACKAGE_DIR", _launch.Path(empty) / "a" / "b"):
                with self.assertRaises(LauncherNotFound) as caught:
                    _launch.find_launch()
        text = str(caught.exception)
        for what in ("ZARR_DIRECT_SERVER_COMMAND", "ZARR_DIRECT_HOME", "ZARR_DIRECT_JARS", "no pom.xml"):
            self.assertIn(what, text)

    def test_java_versions_are_read_from_the_binary(self):
        found = _launch.find_java()
        if found[1] is not None:
            self.assertGreaterEqual(_launch.java_version(found[1]), _launch.MIN_JAVA)
        self.assertIsNone(_launch.java_version("/nonexistent/java"))


if __name__ == "__main__":
    unittest.main()
