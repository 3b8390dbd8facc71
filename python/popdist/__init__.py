"""PopDist's calls as PopART scripts make them: where this process stands in a distributed launch
(``scripts/poprun``, or ``mpirun`` directly). The values are the core's (popart/popdist.hpp): the
POPDIST_* variables of a poprun launch, else the MPI launch's rank and size; a process started on
its own is instance 0 of 1 with one replica.

    import popdist, popdist.popart
    popdist.init()
    opts = popart.SessionOptions()
    popdist.popart.configureSessionOptions(opts)
"""
from popart._popart import _popdist as _core

from . import popart  # noqa: F401  (popdist.popart, as PopDist has it)


def isPopdistEnvSet():
    """Whether the process was started by poprun or an MPI launcher."""
    return _core.isPopdistEnvSet()


def init():
    """Starts MPI for this process: the processes of the launch meet (sessions do it themselves
    when they need it; calling it early reports a broken launch before any model is built)."""
    _core.init()


def getInstanceIndex():
    """This process's index among the launch's processes (its MPI rank)."""
    return _core.getInstanceIndex()


def getNumInstances():
    """The number of processes of the launch."""
    return _core.getNumInstances()


def getNumLocalReplicas():
    """Replicas this process runs."""
    return _core.getNumLocalReplicas()


def getNumTotalReplicas():
    """Replicas of the whole launch."""
    return _core.getNumTotalReplicas()


def getReplicaIndexOffset():
    """The global index of this process's first replica."""
    return _core.getReplicaIndexOffset()


def getNumIpusPerReplica():
    """IPUs per replica of the launch (1 unless poprun was told otherwise)."""
    return _core.getNumIpusPerReplica()
