"""popdist.popart: the session options and device for this process of a distributed launch."""
from popart._popart import _popdist as _core


def configureSessionOptions(opts):
    """Sets replicatedGraphCount (and enableReplicatedGraphs above 1), enableDistributedReplicatedGraphs
    (more than one instance), globalReplicationFactor and globalReplicaOffset from the launch."""
    for name, value in _core.configuredOptions().items():
        setattr(opts, name, value)
    return opts


def getDevice(ipus_per_replica=1):
    """The device for this process's replicas: this build has no IPUs, so the CPU device."""
    return _core.getDevice(ipus_per_replica)
