// IPU-model and offline IPU devices from JS (the core decides options, defaults and errors; see
// tests/unit/ipu_model_test.cpp): the same outputs as the CPU device, offline devices compile only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPopart, expectError, addModel, cpu } from './helpers.mjs';

const popart = await createPopart();
const dm = () => popart.DeviceManager();

test('createIpuModelDevice: PopART defaults, options as numbers or strings', () => {
  const d = dm().createIpuModelDevice();
  assert.equal(d.type, 'ipuModel');
  assert.equal(d.tilesPerIPU, 4);
  assert.equal(d.numIpus, 1);
  assert.equal(d.version, 'ipu2');
  const e = dm().createIpuModelDevice({ tilesPerIPU: 1216, ipuVersion: 'ipu1', numIPUs: '2', compileIPUCode: true });
  assert.equal(e.tilesPerIPU, 1216);
  assert.equal(e.version, 'ipu1');
  assert.equal(e.numIpus, 2);
});

test('device type names come from the core\'s DeviceType; ipuTargets() are the core\'s IpuTargetInfo rows', () => {
  // 'cpu', 'ipuModel', 'offlineIpu', 'sim': the core's DeviceType names with a lower-case first letter.
  assert.deepEqual([dm().createCpuDevice().type, dm().createIpuModelDevice().type, dm().createOfflineIPUDevice().type],
                   ['cpu', 'ipuModel', 'offlineIpu']);
  assert.deepEqual(popart.enumValues.DeviceType.filter((t) => t !== 'Ipu').sort(),
                   ['Cpu', 'IpuModel', 'OfflineIpu', 'Sim']);
  // createSimDevice: PopART's default shape (1 IPU x 4 tiles), run by the IPU model.
  const sim = dm().createSimDevice({ numIPUs: 2, tilesPerIPU: 8 });
  assert.deepEqual([sim.type, sim.numIpus, sim.tilesPerIPU], ['sim', 2, 8]);
  assert.equal(dm().createSimDevice().tilesPerIPU, 4);
  // Every field of IpuTargetInfo, as the core's ipuTargetJson writes it (Python's ipuTargetList() too).
  const targets = popart.ipuTargets();
  assert.deepEqual(targets.map((t) => t.version), ['ipu1', 'ipu2', 'ipu21']);
  assert.deepEqual(Object.keys(targets[1]).sort(),
                   ['bytesPerTile', 'clockHz', 'exchangeBytesPerTileCycle', 'flopsPerTileCycleFloat', 'flopsPerTileCycleFp8',
                    'flopsPerTileCycleHalf', 'gatewayBytesPerSec', 'hostBytesPerSec', 'ipuLinkBytesPerSec', 'ipuLinksPerIpu',
                    'ipusPerChassis', 'product', 'syncCycles', 'tilesPerIpu', 'version', 'workerContexts']);
  assert.equal(targets[1].tilesPerIpu, 1472);
  assert.equal(targets[1].bytesPerTile, 624 * 1024);
  assert.equal(targets[2].flopsPerTileCycleFp8 > 0, true);
});

test('device option errors are the core\'s, and the module keeps working', () => {
  expectError(() => dm().createIpuModelDevice({ tiles: 4 }),
              ["Invalid option `tiles' passed to DevicexManager::createHostDevice for device type IpuModel"]);
  expectError(() => dm().createIpuModelDevice({ tilesPerIPU: 1473 }),
              ["option 'tilesPerIPU' must be an integer from 1 to 1472 (the tiles of an ipu2) (got '1473')"]);
  expectError(() => dm().createIpuModelDevice({ ipuVersion: 'ipu3' }),
              ["option 'ipuVersion' must be one of ipu1, ipu2, ipu21 (got 'ipu3')"]);
  expectError(() => dm().createOfflineIPUDevice({ syncPattern: 'Sometimes' }), ["option 'syncPattern'"]);
  assert.equal(dm().createIpuModelDevice({ tilesPerIPU: 8 }).tilesPerIPU, 8);
});

function runAdd(device) {
  const { proto, a, b, out } = addModel(popart);
  const s = new popart.InferenceSession(proto, new popart.DataFlow(1, [out]), device);
  try {
    s.prepareDevice();
    const anchors = s.initAnchorArrays();
    s.run(new popart.PyStepIO({ [a]: new Float32Array([1, 2, 3, 4, 5, 6]), [b]: new Float32Array(6).fill(0.5) },
                              anchors));
    // The CPU device reports only with profiling on (tests/js/ipu_reports.test.mjs).
    return { y: Array.from(anchors[out].data), report: device.type === 'cpu' ? null : s.getSummaryReport() };
  } finally {
    s.dispose();
  }
}

test('the IPU model gives the CPU device\'s outputs and reports its target', () => {
  const onCpu = runAdd(cpu(popart));
  const onIpu = runAdd(dm().createIpuModelDevice({ tilesPerIPU: 1472 }));
  assert.deepEqual(onIpu.y, onCpu.y);
  assert.deepEqual(onIpu.y, [1.5, 2.5, 3.5, 4.5, 5.5, 6.5]);
  assert.match(onIpu.report, /Tiles per IPU: +1,472\n/);
  assert.match(onIpu.report, /Device: +IpuModel \(ipu2, Colossus Mk2 GC200/);
});

test('an offline IPU device prepares but does not run', () => {
  const d = dm().createOfflineIPUDevice({ ipuVersion: 'ipu2' });
  assert.equal(d.tilesPerIPU, 1472);
  expectError(() => runAdd(d), ['Offline IPU device is not configured for execution']);
  assert.deepEqual(runAdd(cpu(popart)).y, [1.5, 2.5, 3.5, 4.5, 5.5, 6.5]);
});
