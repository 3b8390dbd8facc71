// The program tree (PopVision's program tree): the schedule as nested programs, from
// schedule.js's programTree(). An ARIA tree (role=tree, treeitem, group) with a roving tab stop:
// Up / Down move, Right opens or goes to the first child, Left closes or goes to the parent, Home
// / End, Enter or Space selects an op (or opens / closes a program), `*` opens the siblings.
// Branches render their children when first opened, so a large schedule stays cheap.
import { fmtInt } from './model.js';
import { opLine } from './schedule.js';
import { el } from './dom.js';

const OPEN_BY_DEFAULT = new Set(['program', 'repeat', 'pipeline', 'stage', 'phase', 'pass']);
const KIND_LABELS = {
  program: 'Sequence', repeat: 'Repeat', pipeline: 'Pipeline', stage: 'Stage', phase: 'Phase', pass: 'Sequence',
  node: 'ONNX node', streams: 'Stream copies', tensor: 'Stream', copy: 'IPU copy', op: 'Execute',
};

export class ProgramTree {
  /// host: the element to fill; root: programTree(); opts: { rows (opRows), total (cycles per micro-batch, for shares), label, onSelect(row) }.
  constructor(host, root, opts) {
    this.host = host;
    this.root = root;
    this.opts = opts;
    this.items = new Map();   // model node -> its <li>
    this.parent = new Map();  // model node -> its parent node
    this.leafOf = new Map();  // step -> its leaf node
    this.nodeOf = new WeakMap();  // <li> -> its model node
    let leaves = 0;
    const walk = (n, p) => {
      this.parent.set(n, p);
      if (n.kind === 'op') { this.leafOf.set(n.step, n); ++leaves; }
      for (const c of n.children ?? []) walk(c, n);
    };
    walk(root, null);
    this.tree = el('ul', { class: 'pt-tree', role: 'tree', 'aria-label': opts.label ?? 'Program tree', 'data-testid': 'program-tree',
                           'data-ops': leaves, 'data-leaves': leaves });
    this.tree.append(this.#item(root, 1, 1, 1));
    this.tree.addEventListener('keydown', (e) => this.#key(e));
    host.append(this.tree);
    this.tree.querySelector('[role=treeitem]').tabIndex = 0;
  }

  #item(n, level, pos, size) {
    const branch = !!n.children?.length;
    const open = branch && OPEN_BY_DEFAULT.has(n.kind);
    const r = n.kind === 'op' ? this.opts.rows[n.step] : null;
    const li = el('li', {
      role: 'treeitem', tabindex: '-1', 'aria-level': level, 'aria-posinset': pos, 'aria-setsize': size,
      'aria-expanded': branch ? String(open) : undefined, 'aria-selected': n.kind === 'op' ? 'false' : undefined,
      class: `pt-item pt-${n.kind}`, 'data-kind': n.kind, 'data-pass': n.pass, 'data-count': n.count, 'data-stage': n.stage, 'data-phase': n.phase,
      'data-step': r ? r.step : undefined, 'data-op-name': r?.name, 'data-node': r?.node, 'data-op-id': r?.id,
      'data-ops': branch ? n.ops : undefined,
    });
    const total = this.opts.total || 1;
    const cycles = n.kind === 'op' ? r.cycles : n.cycles;
    const share = cycles ? Math.min(100, (100 * cycles) / total) : 0;
    const row = el('div', { class: 'pt-row', title: r ? opLine(r) : undefined },
      el('span', { class: 'pt-twisty', 'aria-hidden': 'true', text: branch ? (open ? '▾' : '▸') : '' }),
      el('span', { class: 'pt-kind', text: KIND_LABELS[n.kind] ?? n.kind }),
      el('span', { class: n.kind === 'op' || n.kind === 'tensor' || n.kind === 'copy' || n.kind === 'node' ? 'pt-label pt-mono' : 'pt-label', text: n.label }),
      n.detail ? el('span', { class: 'pt-detail', text: n.detail }) : null,
      el('span', { class: 'pt-figures' },
        branch && n.ops ? el('span', { class: 'pt-ops', text: `${fmtInt(n.ops)} op${n.ops === 1 ? '' : 's'}` }) : null,
        cycles ? el('span', { class: 'pt-cycles', text: `${fmtInt(cycles)} cycles` }) : null,
        cycles ? el('span', { class: 'pt-share', title: `${share.toFixed(1)}% of the micro-batch's cycles` }, el('i', { style: `width:${share}%` })) : null));
    row.addEventListener('click', () => {
      this.#focus(li);
      if (branch) this.#toggle(n, li);
      else if (r) this.opts.onSelect(r);
    });
    li.append(row);
    this.items.set(n, li);
    this.nodeOf.set(li, n);
    if (open) this.#renderChildren(n, li, level);
    return li;
  }

  #renderChildren(n, li, level = Number(li.getAttribute('aria-level'))) {
    if (li.querySelector(':scope > [role=group]')) return;
    const group = el('ul', { role: 'group' });
    n.children.forEach((c, i) => group.append(this.#item(c, level + 1, i + 1, n.children.length)));
    li.append(group);
  }

  #setOpen(n, li, open) {
    if (!n.children?.length) return;
    if (open) this.#renderChildren(n, li);
    li.setAttribute('aria-expanded', String(open));
    li.querySelector(':scope > .pt-row > .pt-twisty').textContent = open ? '▾' : '▸';
    const g = li.querySelector(':scope > [role=group]');
    if (g) g.hidden = !open;
  }

  #toggle(n, li) {
    this.#setOpen(n, li, li.getAttribute('aria-expanded') !== 'true');
  }

  expandAll() {
    const walk = (n) => {
      if (!n.children?.length) return;
      this.#setOpen(n, this.items.get(n), true);
      n.children.forEach(walk);
    };
    walk(this.root);
  }

  collapseAll() {
    for (const c of this.root.children ?? []) {
      const li = this.items.get(c);
      if (li) this.#setOpen(c, li, false);
    }
  }

  /// Marks the leaves of `steps` selected; `reveal`: opens their programs and scrolls the first
  /// into view.
  select(steps, reveal = false) {
    const want = new Set(steps ?? []);
    for (const li of this.tree.querySelectorAll('[role=treeitem][data-step]')) {
      const on = want.has(Number(li.dataset.step));
      li.setAttribute('aria-selected', String(on));
      li.classList.toggle('rv-selected', on);
    }
    if (!reveal || !want.size) return;
    let first = null;
    for (const s of want) {
      const leaf = this.leafOf.get(s);
      if (!leaf) continue;
      const path = [];
      for (let p = this.parent.get(leaf); p; p = this.parent.get(p)) path.unshift(p);
      for (const p of path) this.#setOpen(p, this.items.get(p), true);
      const li = this.items.get(leaf);
      li.setAttribute('aria-selected', 'true');
      li.classList.add('rv-selected');
      first ??= li;
    }
    if (first && !first.closest('[hidden]')) first.scrollIntoView?.({ block: 'nearest' });
  }

  #visible() {
    return [...this.tree.querySelectorAll('[role=treeitem]')].filter((li) => !li.parentElement.closest('[role=treeitem][aria-expanded=false]'));
  }

  #focus(li) {
    for (const x of this.tree.querySelectorAll('[role=treeitem][tabindex="0"]')) x.tabIndex = -1;
    li.tabIndex = 0;
    li.focus({ preventScroll: false });
  }

  #key(e) {
    const li = e.target.closest?.('[role=treeitem]');
    if (!li) return;
    const n = this.nodeOf.get(li);
    const vis = this.#visible();
    const i = vis.indexOf(li);
    const branch = !!n?.children?.length;
    const open = li.getAttribute('aria-expanded') === 'true';
    let next = null;
    switch (e.key) {
      case 'ArrowDown': next = vis[i + 1]; break;
      case 'ArrowUp': next = vis[i - 1]; break;
      case 'Home': next = vis[0]; break;
      case 'End': next = vis.at(-1); break;
      case 'ArrowRight':
        if (branch && !open) this.#setOpen(n, li, true);
        else if (branch) next = li.querySelector(':scope > [role=group] > [role=treeitem]');
        break;
      case 'ArrowLeft':
        if (branch && open) this.#setOpen(n, li, false);
        else next = li.parentElement.closest('[role=treeitem]');
        break;
      case 'Enter': case ' ':
        if (branch) this.#toggle(n, li);
        else if (n?.kind === 'op') this.opts.onSelect(this.opts.rows[n.step]);
        break;
      case '*': {
        const p = this.parent.get(n);
        for (const s of p?.children ?? [n]) if (s.children?.length) this.#setOpen(s, this.items.get(s), true);
        break;
      }
      default: return;
    }
    e.preventDefault();
    if (next) this.#focus(next);
  }

  dispose() {
    this.tree.remove();
  }
}
