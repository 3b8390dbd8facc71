"""Distributed replicated training across processes on Open MPI (enableDistributedReplicatedGraphs,
popdist, scripts/poprun): tests/distributed/train.py launched by mpirun on loopback trains to the
same weights (within 1e-6) as one process holding every replica, and as PyTorch on the summed
batch; broadcastWeights; modelToHost written once; the fault cases end within a bounded time with
a clear message; two hosts simulated by two network namespaces joined by a veth pair."""
import os
import re
import shutil
import subprocess
import sys
import time

import numpy as np
import pytest
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "tests", "distributed", "train.py")
PYTHON = "/usr/bin/python3"
MPIRUN = shutil.which("mpirun")


def _available():
    import popart
    return MPIRUN is not None and popart._popart._popdist.isDistributionAvailable()


pytestmark = pytest.mark.skipif(not _available(), reason="this build has no Open MPI (POPART_MPI) or no mpirun")


def _env(**extra):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)  # the popart the tests import
    env.setdefault("POPART_LOG_LEVEL", "OFF")
    for k in [k for k in env if k.startswith(("OMPI_", "PMIX_", "POPDIST_"))]:
        del env[k]  # a test run from inside an MPI launch must not look launched itself
    env.update({k: str(v) for k, v in extra.items()})
    return env


def _mpirun(n, *args, env=None, timeout=120, launcher=None):
    cmd = launcher or [MPIRUN, "--allow-run-as-root", "--oversubscribe", "-np", str(n)]
    for k in ("PYTHONPATH", "POPART_LOG_LEVEL", "POPART_DISTRIBUTED_TIMEOUT"):
        if launcher is None and k in (env or {}):
            cmd += ["-x", k]
    t0 = time.monotonic()
    p = subprocess.run(cmd + [PYTHON, SCRIPT] + list(args), env=env or _env(), capture_output=True, text=True,
                       timeout=timeout)
    return p.returncode, p.stdout + p.stderr, time.monotonic() - t0


def _train(tmp_path, name, n, *args, **kw):
    out = tmp_path / name
    rc, log, _ = _mpirun(n, "--out", str(out), *args, env=_env(**kw.pop("env", {})), **kw)
    assert rc == 0, log
    return [dict(np.load(out / f"rank{r}.npz")) for r in range(n)], out


def _single(tmp_path, name, *args):
    """The reference: one process (no MPI launch) holding all 4 replicas."""
    out = tmp_path / name
    p = subprocess.run([PYTHON, SCRIPT, "--out", str(out), "--local", "4", *args], env=_env(), capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    return dict(np.load(out / "rank0.npz"))


def _same(got, want, tol=1e-6):
    np.testing.assert_allclose(got["w1"], want["w1"], rtol=tol, atol=tol)
    np.testing.assert_allclose(got["w2"], want["w2"], rtol=tol, atol=tol)


def _torch_reference(optimizer, mean=False):
    sys.path.insert(0, os.path.dirname(SCRIPT))
    try:
        import train
    finally:
        sys.path.pop(0)
    w1, w2, xs = train.data(4)
    p = [torch.tensor(w1, dtype=torch.float64, requires_grad=True),
         torch.tensor(w2, dtype=torch.float64, requires_grad=True)]
    opt = {"momentum": lambda: torch.optim.SGD(p, lr=0.05, momentum=0.9),
           "adam": lambda: torch.optim.Adam(p, lr=0.05, eps=1e-8)}[optimizer]()
    for step in range(train.STEPS):
        opt.zero_grad()
        for g in range(4):
            loss = (torch.tanh(torch.tensor(xs[step, g], dtype=torch.float64) @ p[0]) @ p[1]).abs().sum()
            (loss / 4 if mean else loss).backward()
        opt.step()
    return {"w1": p[0].detach().numpy(), "w2": p[1].detach().numpy()}


@pytest.mark.parametrize("ranks", [2, 4])
def test_ranks_train_to_the_weights_of_one_process_and_of_pytorch(tmp_path, ranks):
    got, out = _train(tmp_path, "d", ranks)
    ref = _single(tmp_path, "one")
    for r in range(ranks):
        _same(got[r], ref)
        np.testing.assert_array_equal(got[r]["w1"], got[0]["w1"])  # every process holds the same weights
    _same(got[0], _torch_reference("momentum"), tol=1e-5)
    # Each process's loss anchor is its own replicas': together, the single process's.
    losses = np.concatenate([g["losses"] for g in got], axis=1)
    np.testing.assert_allclose(losses, ref["losses"], rtol=1e-6)
    # modelToHost: process 0 wrote the model, with the trained weights.
    import onnx
    from onnx import numpy_helper
    m = onnx.load(str(out / "model.onnx"))
    init = {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}
    np.testing.assert_array_equal(init["w1"], got[0]["w1"])


@pytest.mark.parametrize("optimizer,mean", [("adam", False), ("momentum", True)])
def test_optimizers_and_the_mean_reduction_across_processes(tmp_path, optimizer, mean):
    flags = ["--optimizer", optimizer] + (["--mean"] if mean else [])
    got, _ = _train(tmp_path, "d", 2, *flags)
    _same(got[1], _single(tmp_path, "one", *flags))
    _same(got[0], _torch_reference(optimizer, mean), tol=1e-5)


def test_collectives_between_replicas_of_different_processes(tmp_path):
    # Replica groups that span the processes (Orthogonal pairs {0, 2}, {1, 3} at 2 x 2; the maximum
    # over all 4), a reduce-scatter in the loss and its gradient (an all-gather): 2 processes train
    # to the weights, losses and anchors of one process holding the 4 replicas.
    want = _single(tmp_path, "one", "--collectives", "--optimizer", "sgd")
    ranks, _ = _train(tmp_path, "two", 2, "--collectives", "--optimizer", "sgd")
    for r in ranks:
        _same(r, want)
    np.testing.assert_allclose(np.concatenate([r["losses"] for r in ranks], axis=1), want["losses"], rtol=1e-6)
    np.testing.assert_allclose(np.concatenate([r["maxima"] for r in ranks], axis=1), want["maxima"], rtol=1e-6)
    assert np.ptp(want["maxima"], axis=1).max() == 0  # every replica sees the same maximum


def test_gradient_buckets_overlap_the_backward_pass(tmp_path):
    # A 4.3 MB weight: between processes the gradients are summed in buckets (one per 4 MiB, in
    # the order the backward pass makes them), each sent while the backward pass goes on; the
    # weights equal one process's, whose replicas need no buckets.
    want = _single(tmp_path, "one", "--wide", "--optimizer", "sgd")
    ranks, _ = _train(tmp_path, "two", 2, "--wide", "--optimizer", "sgd",
                      env={"POPART_LOG_LEVEL": "INFO"})
    for r in ranks:
        _same(r, want, tol=1e-5)


def test_sharded_optimizer_state_across_processes(tmp_path):
    # PopART's recommended sharding domain between processes: each process's replicas
    # (CommGroup(Consecutive, local replicas)). Each shard is summed with the same shard of the
    # other process; the weights and the whole optimizer state process 0 saves equal one process's.
    import onnx
    from onnx import numpy_helper
    want = _single(tmp_path, "one", "--optimizer", "adam")
    ranks, out = _train(tmp_path, "two", 2, "--optimizer", "adam", "--shard", "local",
                        env={"POPART_LOG_LEVEL": "INFO"})
    for r in ranks:
        _same(r, want)
    saved = lambda path: {t.name: numpy_helper.to_array(t) for t in onnx.load(str(path)).graph.initializer}
    got, ref = saved(out / "model.onnx"), saved(tmp_path / "one" / "model.onnx")
    assert any(name.startswith("Accl1___") for name in ref)
    for name, value in ref.items():
        np.testing.assert_allclose(got[name], value, rtol=1e-6, atol=1e-7, err_msg=name)
    # Over all replicas of every process: not supported (each process holds whole tensors).
    rc, log, _ = _mpirun(2, "--out", str(tmp_path / "all"), "--optimizer", "adam", "--shard", "all")
    assert rc != 0
    assert "over all 4 replicas of a distributed session is not supported" in log, log


@pytest.mark.parametrize("grouping", ["Consecutive", "Orthogonal"])
def test_weights_grouped_by_variable_settings_across_processes(tmp_path, grouping):
    # w2 has a value per pair of the 4 global replicas: Consecutive pairs each within one process,
    # Orthogonal pairs spanning the two. Each group's replicas sum their gradients; every process
    # reads back (and process 0 saves) every group's value: those of one process holding the 4.
    import onnx
    from onnx import numpy_helper
    want = _single(tmp_path, "one", "--optimizer", "momentum", "--grouped", grouping)
    ranks, out = _train(tmp_path, "two", 2, "--optimizer", "momentum", "--grouped", grouping)
    assert want["w2"].shape == (2, 3, 2)
    assert not np.allclose(want["w2"][0], 2 * want["w2"][1])  # the groups trained apart
    for r in ranks:
        _same(r, want)
    saved = {t.name: numpy_helper.to_array(t) for t in onnx.load(str(out / "model.onnx")).graph.initializer}
    np.testing.assert_allclose(saved["w2"], want["w2"], rtol=1e-6, atol=1e-7)


def test_poprun_and_popdist_configure_the_processes(tmp_path):
    # scripts/poprun: 2 instances x 2 replicas; the script takes its options from popdist.
    out = tmp_path / "p"
    launcher = [os.path.join(ROOT, "scripts", "poprun"), "--num-instances", "2", "--num-replicas", "4", "--"]
    rc, log, _ = _mpirun(2, "--out", str(out), "--popdist", launcher=launcher)
    assert rc == 0, log
    ref = _single(tmp_path, "one")
    for r in range(2):
        got = dict(np.load(out / f"rank{r}.npz"))
        _same(got, ref)
        assert int(got["offset"]) == 2 * r and int(got["local"]) == 2
    # What popdist reports inside such a launch.
    probe = ("import popdist, popdist.popart, popart; o = popart.SessionOptions(); "
             "popdist.popart.configureSessionOptions(o); "
             "v = [popdist.isPopdistEnvSet(), popdist.getInstanceIndex(), popdist.getNumInstances(), "
             "popdist.getNumLocalReplicas(), popdist.getNumTotalReplicas(), popdist.getReplicaIndexOffset(), "
             "o.enableDistributedReplicatedGraphs, o.globalReplicationFactor, o.globalReplicaOffset, "
             "o.replicatedGraphCount]; print('PD ' + ' '.join(map(str, v)), flush=True)")
    p = subprocess.run(launcher + [PYTHON, "-c", probe], env=_env(), capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr
    # The two processes' lines reach mpirun's output side by side and may run together.
    value = r"(?:True|False|\d+)"
    lines = sorted(re.findall(r"PD (%s(?: %s){9})" % (value, value), p.stdout))
    assert lines == ["True 0 2 2 4 0 True 4 0 2", "True 1 2 2 4 2 True 4 2 2"], p.stdout


def test_a_script_that_starts_mpi_itself_with_mpi4py(tmp_path):
    pytest.importorskip("mpi4py")
    got, _ = _train(tmp_path, "d", 2, "--mpi4py")
    _same(got[1], _single(tmp_path, "one"))


def test_broadcast_weights_aligns_processes_that_start_apart(tmp_path):
    ref = _single(tmp_path, "one")
    got, _ = _train(tmp_path, "b", 2, "--perturb", "--broadcast")
    _same(got[0], ref)
    _same(got[1], ref)
    apart, _ = _train(tmp_path, "n", 2, "--perturb")  # without it each process keeps its own start
    assert np.abs(apart[1]["w1"] - ref["w1"]).max() > 0.1


def _failure(tmp_path, *args, env=None):
    rc, log, seconds = _mpirun(2, "--out", str(tmp_path / "f"), *args, env=_env(**(env or {})), timeout=90)
    assert rc != 0, log
    assert seconds < 60, (seconds, log)
    return log


def test_a_process_that_never_starts_stops_the_others(tmp_path):
    log = _failure(tmp_path, "--stall", "60", env={"POPART_DISTRIBUTED_TIMEOUT": 3})
    assert "MPI did not start within 3 s (POPART_DISTRIBUTED_TIMEOUT)" in log


def test_a_process_that_stops_taking_part_stops_the_others(tmp_path):
    log = _failure(tmp_path, "--stall-training", "60", env={"POPART_DISTRIBUTED_TIMEOUT": 3})
    assert "the sum across replicas: the other processes did not take part within 3 s" in log


def test_a_process_that_dies_ends_the_job(tmp_path):
    log = _failure(tmp_path, "--die-before-training")
    assert "exited with non-zero status" in log or "Exit code:    3" in log


def test_inconsistent_settings_are_found_at_prepare(tmp_path):
    log = _failure(tmp_path, "--wrong-offset")
    assert ("do not hold the globalReplicationFactor (4) replicas once each (process 0: replicas 0 to 1 of 4, "
            "process 1: replicas 0 to 1 of 4)") in log
    log = _failure(tmp_path, "--lr-of-rank1", "0.2")
    assert "differ in the model (the prepared graph, its shapes and constants, the optimizer): process(es) 1" in log


def test_distribution_options_are_validated_as_popart(popart):
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [2]), "x")
    w = b.addInitializedInputTensor(np.ones(2, np.float32), "w")
    loss = b.aiGraphcore.l1loss([b.aiOnnx.mul([x, w])], 1.0)

    def session(**kw):
        o = popart.SessionOptions()
        o.enableDistributedReplicatedGraphs = True
        for k, v in kw.items():
            setattr(o, k, v)
        return popart.TrainingSession(b.getModelProto(), popart.DataFlow(1, [loss]), loss, popart.ConstSGD(0.1),
                                      popart.DeviceManager().createCpuDevice(), userOptions=o)

    cases = [({"globalReplicationFactor": 0}, "Invalid globalReplicationFactor value: 0, must be greater or equal than 1"),
             ({"globalReplicationFactor": 2, "globalReplicaOffset": -1},
              "Invalid globalReplicaOffset value: -1, must be greater or equal than 0"),
             ({"globalReplicationFactor": 2, "globalReplicaOffset": 3},
              "Global replica offset: 3, is larger than global replication factor: 2"),
             ({"globalReplicationFactor": 2, "enableReplicatedGraphs": True, "replicatedGraphCount": 1},
              "Local replicated graphs enabled but replication factor is 1"),
             ({"globalReplicationFactor": 2, "enableReplicatedGraphs": True, "replicatedGraphCount": 4},
              "Invalid local replication factor: 4, larger than global replication factor: 2")]
    for options, message in cases:
        with pytest.raises(popart.popart_exception, match=message.replace("(", r"\(").replace(")", r"\)")):
            session(**options)


AGENT = """#!/bin/sh
# Open MPI's rsh agent for the simulated hosts: run the command in the host's network namespace.
host="$1"; shift
case "$host" in
  10.99.0.1) ns=popart_host_a ;;
  10.99.0.2) ns=popart_host_b ;;
  *) echo "no namespace for $host" >&2; exit 1 ;;
esac
exec ip netns exec "$ns" sh -c "$*"
"""


@pytest.fixture
def two_hosts(tmp_path):
    """Two network namespaces (the hosts 10.99.0.1 and 10.99.0.2) joined by a veth pair."""
    if os.geteuid() != 0 or not shutil.which("ip"):
        pytest.skip("simulating two hosts needs root and iproute2 (ip netns)")
    cmds = [["ip", "netns", "add", "popart_host_a"], ["ip", "netns", "add", "popart_host_b"],
            ["ip", "link", "add", "popart_veth_a", "type", "veth", "peer", "name", "popart_veth_b"],
            ["ip", "link", "set", "popart_veth_a", "netns", "popart_host_a"],
            ["ip", "link", "set", "popart_veth_b", "netns", "popart_host_b"]]
    for ns, dev, addr in [("popart_host_a", "popart_veth_a", "10.99.0.1/24"),
                          ("popart_host_b", "popart_veth_b", "10.99.0.2/24")]:
        cmds += [["ip", "netns", "exec", ns, "ip", "addr", "add", addr, "dev", dev],
                 ["ip", "netns", "exec", ns, "ip", "link", "set", dev, "up"],
                 ["ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up"]]
    try:
        for c in cmds:
            p = subprocess.run(c, capture_output=True, text=True)
            if p.returncode != 0:
                pytest.skip(f"this machine does not allow network namespaces ({' '.join(c)}: {p.stderr.strip()})")
        agent = tmp_path / "netns_agent"
        agent.write_text(AGENT)
        agent.chmod(0o755)
        yield str(agent)
    finally:
        for ns in ("popart_host_a", "popart_host_b"):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def test_two_hosts_joined_by_a_network_link(tmp_path, two_hosts):
    out = tmp_path / "h"
    launcher = ["ip", "netns", "exec", "popart_host_a", MPIRUN, "--allow-run-as-root", "--oversubscribe",
                "--host", "10.99.0.1:1,10.99.0.2:1", "-np", "2", "--mca", "plm_rsh_agent", two_hosts,
                "--mca", "btl_tcp_if_include", "10.99.0.0/24", "--mca", "oob_tcp_if_include", "10.99.0.0/24",
                "-x", "PYTHONPATH", "-x", "POPART_LOG_LEVEL"]
    rc, log, _ = _mpirun(2, "--out", str(out), launcher=launcher, timeout=120)
    assert rc == 0, log
    ref = _single(tmp_path, "one")
    for r in range(2):
        _same(dict(np.load(out / f"rank{r}.npz")), ref)


def test_the_distributed_digits_example_trains_under_poprun():
    # README's line: python/examples/distributed_digits.py on 2 processes.
    p = subprocess.run([os.path.join(ROOT, "scripts", "poprun"), "--num-instances", "2", "--num-replicas", "2", PYTHON,
                        os.path.join(ROOT, "python", "examples", "distributed_digits.py"), "--epochs", "3"],
                       env=_env(), capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "(replicas 0-0 of 2)" in p.stdout
    accuracy = float(p.stdout.split("training accuracy: ")[1][:6])
    assert accuracy > 0.9, p.stdout
