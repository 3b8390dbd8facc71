// The Log panel: the core's log lines, which the runtime worker sends here (popart.
// setLogDestination with a function), with the level the core logs at (getLogger().setLevel; WARN
// to start with, PopART's levels), a text filter, Clear and Save. printtensor's output comes too.
// The tab counts the warnings and errors that arrive while another tab is shown.
import { h, clear, download } from './util.js';

export const LOG_LEVELS = ['OFF', 'CRITICAL', 'ERR', 'WARN', 'INFO', 'DEBUG', 'TRACE'];
const MAX_LINES = 5000;  // the oldest lines go first

export function createLogPanel(el, app, tab) {
  const level = h('select', { testid: 'log-level', 'aria-label': 'Log level' },
    LOG_LEVELS.map((l) => h('option', { value: l, selected: l === 'WARN' }, l)));
  const filter = h('input', { type: 'search', testid: 'log-filter', placeholder: 'Filter (text or module)',
                              'aria-label': 'Filter the log lines' });
  const clearButton = h('button', { type: 'button', testid: 'log-clear' }, 'Clear');
  const save = h('button', { type: 'button', testid: 'log-save' }, 'Save…');
  const count = h('span.muted', { testid: 'log-count', 'aria-live': 'polite' });
  const list = h('ol.log-lines', { testid: 'log-lines', 'aria-label': 'Log lines' });
  el.append(h('h2', {}, 'Log'),
    h('div.button-row', {}, h('label.inline', {}, 'Level', level), filter, clearButton, save, count),
    h('p.muted', {}, 'The runtime\'s log (PopART\'s modules and levels). INFO shows each session\'s preparation; printtensor\'s values appear here.'),
    list);

  const lines = [];  // {line, level, module}
  let unseen = 0;
  const tabLabel = tab.textContent;

  const matches = (l) => {
    const f = filter.value.trim().toLowerCase();
    return !f || l.line.toLowerCase().includes(f) || l.module === f;
  };
  const row = (l) => h(`li.log-${l.level.toLowerCase()}`, { dataset: { level: l.level, module: l.module } }, l.line);
  const updateCount = () => {
    const shown = list.childElementCount;
    count.textContent = `${lines.length} line${lines.length === 1 ? '' : 's'}${shown !== lines.length ? `, ${shown} shown` : ''}`;
  };
  const markTab = () => { tab.textContent = unseen ? `${tabLabel} (${unseen})` : tabLabel; };

  function add(l) {
    lines.push(l);
    if (lines.length > MAX_LINES) {
      const dropped = lines.shift();
      if (list.firstChild && list.firstChild.textContent === dropped.line) list.firstChild.remove();
    }
    if (matches(l)) {
      const stick = list.scrollTop + list.clientHeight >= list.scrollHeight - 4;
      list.append(row(l));
      if (stick) list.scrollTop = list.scrollHeight;
    }
    if (el.hidden && (l.level === 'WARN' || l.level === 'ERR' || l.level === 'CRITICAL')) {
      ++unseen;
      markTab();
    }
    updateCount();
  }
  function rerender() {
    clear(list);
    list.append(...lines.filter(matches).map(row));
    updateCount();
  }

  app.on('log', add);
  app.on('tab', (id) => {
    if (id === tab.id) { unseen = 0; markTab(); }
  });
  async function applyLevel() {
    try {
      await app.runtime.request('setLogLevel', { level: level.value }, { quiet: true });
    } catch (e) {
      app.showError?.(e, 'The log level was not set');
    }
  }
  level.addEventListener('change', applyLevel);
  app.on('runtime-restart', applyLevel);  // a restarted runtime starts at this level
  filter.addEventListener('input', rerender);
  clearButton.addEventListener('click', () => { lines.length = 0; unseen = 0; markTab(); rerender(); });
  save.addEventListener('click', () => download('popart.log', lines.map((l) => l.line).join('\n') + '\n', 'text/plain'));
  updateCount();
}
