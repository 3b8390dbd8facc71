// The optimizers (SGD, ConstSGD, Adam, Adaptive, ClipNormSettings) and the pre-1.2 loss objects
// (NllLoss, L1Loss, IdentityLoss): specs the core checks against its tables (optimizerParams,
// the enums); sessions pass them on.
import { describe, isKeywords } from './values.mjs';

export function makeOptimizers({ M, enums, popartEnumList }) {
  const reductionName = (r) => {
    const v = r ?? 'Sum';
    if (!Object.hasOwn(enums.ReductionType, v)) {
      throw new Error(`Invalid reduction type '${v}'; expected ${popartEnumList('ReductionType')}`);
    }
    return v;
  };
  /// The pre-1.2 loss objects: TrainingSession(..., losses, ...) appends them to the model.
  class Loss {
    constructor(type, inputs, output, reduction, extra = {}) {
      for (const id of [...inputs, output])
        if (typeof id !== 'string') throw new Error(`${type} loss: tensor ids must be strings`);
      this._spec = { type, inputs, output, reduction: reductionName(reduction), ...extra };
    }
    output() { return this._spec.output; }
  }
  class NllLoss extends Loss {
    /// NllLoss(probs, label, output, reduction = 'Sum') or
    /// NllLoss(probs, label, output, ignoreIndex, reduction = 'Sum', inputIsLogProbability = false).
    constructor(probs, label, output, ...rest) {
      if (typeof rest[0] === 'number') {
        super('Nll', [probs, label], output, rest[1], { ignoreIndex: rest[0], inputIsLogProbability: !!rest[2] });
      } else {
        super('Nll', [probs, label], output, rest[0]);
      }
    }
  }
  class L1Loss extends Loss {
    constructor(input, output, lambda, reduction = 'Sum') {
      if (typeof lambda !== 'number') throw new Error('L1Loss: lambda must be a number');
      super('L1', [input], output, reduction, { lambda });
    }
  }
  class IdentityLoss extends Loss {
    constructor(input, output, reduction = 'Sum') { super('IdentityLoss', [input], output, reduction); }
  }
  function lossSpecs(losses, what) {
    if (!Array.isArray(losses)) throw new Error(`${what}: losses must be an array of NllLoss / L1Loss / IdentityLoss`);
    return losses.map((l, i) => {
      if (!(l instanceof Loss)) throw new Error(`${what}: losses[${i}] is not an NllLoss, L1Loss or IdentityLoss`);
      return l._spec;
    });
  }

  /// Optimizer values: a number (constant), [value, isConst] (PopART's tuples) or
  /// {value, isConst}.
  function optimizerParams(params, what) {
    if (params === undefined) return {};
    if (!isKeywords(params)) {
      throw new Error(`${what}: expected {key: value} (e.g. {defaultLearningRate: [0.1, false]}), got ${describe(params)}`);
    }
    const out = {};
    for (const [k, v] of Object.entries(params)) {
      let pair = null;
      if (typeof v === 'number') pair = [v, true];
      else if (Array.isArray(v) && v.length === 2) pair = [v[0], v[1]];
      else if (v && typeof v === 'object' && 'value' in v) pair = [v.value, v.isConst ?? true];
      if (!pair || typeof pair[0] !== 'number' || typeof pair[1] !== 'boolean') {
        throw new Error(`${what}: value '${k}' must be a number, [value, isConst] or {value, isConst}, got ` +
                        `${describe(v)}`);
      }
      out[k] = pair;
    }
    return out;
  }

  /// Gradient clipping by norm: ClipNormSettings(weightIds, maxNorm) or
  /// ClipNormSettings.clipAllWeights(maxNorm).
  class ClipNormSettings {
    constructor(weightIds, maxNorm) {
      if (!Array.isArray(weightIds) || typeof maxNorm !== 'number')
        throw new Error('ClipNormSettings(weightIds: string[], maxNorm: number)');
      this._spec = { weights: weightIds.map(String), maxNorm };
    }
    static clipWeights(weightIds, maxNorm) { return new ClipNormSettings(weightIds, maxNorm); }
    static clipAllWeights(maxNorm) {
      const c = new ClipNormSettings([], maxNorm);
      c._spec = { allWeights: true, maxNorm };
      return c;
    }
  }
  function clipNormSpecs(list) {
    if (!Array.isArray(list)) throw new Error('clipNormSettings must be an array of ClipNormSettings');
    return list.map((c) => {
      if (!(c instanceof ClipNormSettings)) throw new Error('clipNormSettings must be an array of ClipNormSettings');
      return c._spec;
    });
  }

  class Optimizer {
    constructor(spec) {
      M.checkOptimizer(spec);
      this._spec = spec;
    }
    type() { return this._spec.type === 'ConstSGD' ? 'SGD' : this._spec.type; }
    /// Weight-specific values (keys as PopART's insertSpecific).
    insertSpecific(weightId, params) {
      const spec = { ...this._spec,
                     specific: { ...(this._spec.specific ?? {}), [weightId]: optimizerParams(params, 'insertSpecific') } };
      M.checkOptimizer(spec);
      this._spec = spec;
      return this;
    }
  }
  class SGD extends Optimizer {
    /// SGD({defaultLearningRate: [0.1, false], defaultMomentum: 0.9, ...}, clipNormSettings,
    ///     accumulatorAndMomentum 'Combined' | 'Separate'), or poponnx's / early PopART's
    /// SGD(learningRate): a non-constant learning rate (updateOptimizer can change it; ConstSGD is the
    /// constant form), every other value at its default.
    constructor(params = {}, clipNormSettings = [], accumulatorAndMomentum = 'Combined') {
      if (typeof params === 'number') {
        if (arguments.length > 1) {
          throw new Error('SGD(learningRate) takes only the learning rate; give other values as SGD({defaultLearningRate: ' +
                          '[lr, false], defaultWeightDecay: wd, ...}, clipNormSettings, accumulatorAndMomentum)');
        }
        super({ type: 'SGD', learningRate: params, specific: {}, clipNormSettings: [] });
        return;
      }
      super({ type: 'SGD', params: optimizerParams(params, 'SGD'), specific: {}, accumulatorAndMomentum,
              clipNormSettings: clipNormSpecs(clipNormSettings) });
    }
  }
  class ConstSGD extends Optimizer {
    constructor(learningRate, weightDecay = 0, lossScaling = 1, clipNormSettings = []) {
      for (const [k, v] of Object.entries({ learningRate, weightDecay, lossScaling }))
        if (typeof v !== 'number') throw new Error(`ConstSGD: ${k} must be a number`);
      super({ type: 'ConstSGD', params: { learningRate, weightDecay, lossScaling },
              clipNormSettings: clipNormSpecs(clipNormSettings) });
    }
  }
  class Adam extends Optimizer {
    /// Adam(values, mode 'Adam' | 'AdamNoBias' | 'AdaMax' | 'Lamb' | 'LambNoBias',
    ///      weightDecayMode 'Decay' | 'L2Regularization')
    constructor(params = {}, mode = 'Adam', weightDecayMode = 'Decay', clipNormSettings = []) {
      super({ type: 'Adam', params: optimizerParams(params, 'Adam'), specific: {}, mode, weightDecayMode,
              clipNormSettings: clipNormSpecs(clipNormSettings) });
    }
  }
  class Adaptive extends Optimizer {
    /// Adaptive(values, mode 'AdaGrad' | 'RMSProp' | 'CenteredRMSProp' | 'AdaDelta', weightDecayMode,
    ///          rmspropTFVariant)
    constructor(params = {}, mode = 'RMSProp', weightDecayMode = 'Decay', rmspropTFVariant = false) {
      super({ type: 'Adaptive', params: optimizerParams(params, 'Adaptive'), specific: {}, mode, weightDecayMode,
              rmspropTFVariant });
    }
  }

  return { Loss, NllLoss, L1Loss, IdentityLoss, lossSpecs, Optimizer, SGD, ConstSGD, Adam, Adaptive,
           ClipNormSettings };
}
