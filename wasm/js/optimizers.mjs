// The optimizers (SGD, ConstSGD, Adam, Adaptive), ClipNormSettings and the pre-1.2 loss objects
// (NllLoss, L1Loss, IdentityLoss). The optimizer and loss classes are made from the core's table of
// constructors (M.factoryList(): PopART's argument order, kinds and defaults), so a call takes the
// same arguments, positionally, as PopART's Python constructor; the core matches a call to an
// overload, fills the defaults and builds the object. Sessions pass the specs on.

export function makeOptimizers({ M }) {
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
  /// A constructor's arguments as the core reads them (ClipNormSettings as their specs).
  const marshal = (args) => args.map((a) => (Array.isArray(a) && a.length && a.every((c) => c instanceof ClipNormSettings)
    ? a.map((c) => c._spec) : a));

  /// The core's constructor a class stands for (its own or the nearest base class's).
  const factoryOf = (cls, what) => {
    if (!cls._factory) throw new Error(`${what} is abstract: use SGD, ConstSGD, Adam, Adaptive, NllLoss, L1Loss or IdentityLoss`);
    return cls._factory;
  };
  class Optimizer {
    constructor(...args) {
      const spec = { factory: factoryOf(new.target, 'Optimizer'), args: marshal(args), specific: {} };
      this._type = M.checkOptimizer(spec);
      this._spec = spec;
    }
    /// 'SGD', 'Adam' or 'Adaptive' (a ConstSGD is an SGD).
    type() { return this._type; }
    /// Weight-specific values (keys as PopART's insertSpecific).
    insertSpecific(weightId, params) {
      const spec = { ...this._spec, specific: { ...this._spec.specific, [weightId]: params } };
      M.checkOptimizer(spec);
      this._spec = spec;
      return this;
    }
  }
  /// The pre-1.2 loss objects: TrainingSession(..., losses, ...) appends them to the model.
  class Loss {
    constructor(...args) {
      const spec = { factory: factoryOf(new.target, 'Loss'), args: marshal(args) };
      this._output = M.checkLoss(spec);
      this._spec = spec;
    }
    output() { return this._output; }
  }
  function lossSpecs(losses, what) {
    if (!Array.isArray(losses)) throw new Error(`${what}: losses must be an array of NllLoss / L1Loss / IdentityLoss`);
    return losses.map((l, i) => {
      if (!(l instanceof Loss)) throw new Error(`${what}: losses[${i}] is not an NllLoss, L1Loss or IdentityLoss`);
      return l._spec;
    });
  }

  const classes = { Optimizer, Loss };
  for (const f of M.factoryList()) {
    const Base = classes[f.base];
    if (!Base) throw new Error(`constructor ${f.name}: unknown base class ${f.base}`);
    // A class named as PopART's (SGD.name === 'SGD'), taking PopART's arguments.
    const cls = { [f.name]: class extends Base {} }[f.name];
    Object.defineProperty(cls, '_factory', { value: f.name });
    classes[f.name] = cls;
  }
  return { ...classes, lossSpecs, ClipNormSettings };
}
