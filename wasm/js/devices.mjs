// DeviceManager and DeviceInfo: the core's devices (CPU, IPU model, offline IPU, simulator); the
// options, names and errors are the core's (popart/devicemanager.hpp).

export function makeDevices({ M }) {
  class DeviceInfo {
    constructor(spec, info) {
      this._spec = spec;
      const { options, ...rest } = info;
      Object.assign(this, rest);
      this.type = spec.type;
    }
    toString() { return this.description; }
  }

  let deviceManager = null;
  class DeviceManagerClass {
    createCpuDevice() { return this._create({ type: 'cpu' }); }
    createIpuModelDevice(options = {}) { return this._create({ type: 'ipuModel', options }); }
    createOfflineIPUDevice(options = {}) { return this._create({ type: 'offlineIpu', options }); }
    createSimDevice(options = {}) { return this._create({ type: 'sim', options }); }
    /// The core's acquire* (this build sees no hardware IPUs: an error naming createCpuDevice()).
    acquireAvailableDevice(numIpus = 1) {
      const i = M.acquireDevice('available', numIpus);
      return new DeviceInfo({ type: i.type, options: i.options }, i);
    }
    acquireDeviceById(id) {
      const i = M.acquireDevice('byId', id);
      return new DeviceInfo({ type: i.type, options: i.options }, i);
    }
    enumerateDevices() { return M.enumerateDevices().map((d) => new DeviceInfo({ type: 'ipu' }, d)); }
    _create(spec) { return new DeviceInfo(spec, M.checkDevice(spec)); }
  }
  function DeviceManager() {
    if (!deviceManager) deviceManager = new DeviceManagerClass();
    return deviceManager;
  }

  return { DeviceInfo, DeviceManager };
}
