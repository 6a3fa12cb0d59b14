import { useShallow } from 'zustand/react/shallow';
import { useAppStore } from '../stores/appStore';
import { useLabRunStore } from '../stores/labRunStore';
import { usePageStore } from '../stores/pageStore';
import type { Page } from '../stores/pageStore';
import { useRunStore } from '../stores/runStore';
import { AwaitingMenu } from './AwaitingMenu';
import { OpenRunButton } from './OpenRunButton';
import { RunningLink } from './RunningLink';
import { ThemeSwitch } from './ThemeSwitch';

/** The pages of the window; a page with nothing to show yet is disabled. */
function PageTabs() {
  const { page, show } = usePageStore(useShallow((state) => ({ page: state.page, show: state.show })));
  const phase = useLabRunStore((state) => state.run?.header.phase ?? null);
  const isLive = useLabRunStore((state) => state.run !== null && state.run.header.live !== null);
  const awaiting = useLabRunStore((state) => state.run?.candidates.filter((c) => c.state === 'awaiting-confirm').length ?? 0);
  const viewerStatus = useRunStore((state) => state.status);
  // A live-mode run on screen is the Live tab's; the Run tab is for runs of a recipe's tasks.
  const runPhase = isLive ? null : phase;
  const tabs: { page: Page; label: string; disabled: boolean }[] = [
    { page: 'start', label: 'Start', disabled: false },
    { page: 'live', label: isLive && phase !== null ? `Live · ${phase}` : 'Live', disabled: false },
    { page: 'run', label: runPhase === null ? 'Run' : `Run · ${runPhase}`, disabled: runPhase === null },
    { page: 'viewer', label: 'Curve viewer', disabled: false },
  ];
  // The page a live run is shown on, whichever way the person came to it.
  const current: Page = page === 'run' && isLive ? 'live' : page;
  const badgeTab: Page = isLive ? 'live' : 'run';
  return (
    <nav className="page-tabs" aria-label="Pages">
      {tabs.map((tab) => (
        <button
          key={tab.page}
          type="button"
          className={`page-tab${current === tab.page ? ' current' : ''}${tab.page === badgeTab && (phase === 'running' || phase === 'pausing') ? ' live' : ''}`}
          aria-current={current === tab.page ? 'page' : undefined}
          disabled={tab.disabled}
          data-testid={`tab-${tab.page}`}
          onClick={() => show(tab.page)}
        >
          {tab.label}
          {tab.page === 'viewer' && viewerStatus === 'loaded' ? ' ●' : ''}
          {tab.page === badgeTab && awaiting > 0 && (
            <span
              className="tab-badge"
              data-testid={`${badgeTab}-tab-badge`}
              role="status"
              aria-label={`${awaiting} candidate${awaiting === 1 ? '' : 's'} await${awaiting === 1 ? 's' : ''} your decision`}
              title={`${awaiting} candidate${awaiting === 1 ? '' : 's'} await${awaiting === 1 ? 's' : ''} your decision`}
            >
              ⚑ {awaiting}
            </span>
          )}
        </button>
      ))}
    </nav>
  );
}

export function TopBar() {
  const { info } = useAppStore(useShallow((state) => ({ info: state.info })));
  const mode = info === null ? 'connecting…' : info.mode === 'electron' ? 'Electron' : 'Browser mode';
  const transport = info === null ? '' : info.mode === 'electron' ? 'IPC' : '127.0.0.1 · HTTP + WebSocket';
  return (
    <header className="topbar">
      <div className="brand">
        <svg className="brand-mark" viewBox="0 0 32 32" aria-hidden="true">
          <rect x="2" y="2" width="28" height="28" rx="7" fill="#1f6feb" />
          <path d="M9 22 L14 14 L18 18 L24 9" stroke="#fff" strokeWidth="2.6" fill="none" strokeLinecap="round" strokeLinejoin="round" />
          <rect x="7" y="6" width="2.4" height="20" rx="1.2" fill="#e3b341" />
        </svg>
        <span className="brand-name">GateLab</span>
        <span className="brand-sub">release-gated RL lab</span>
      </div>
      <PageTabs />
      <div className="topbar-right">
        <RunningLink />
        <AwaitingMenu />
        <span
          className="mode-badge"
          data-testid="mode-badge"
          title={info === null ? '' : `GateLab v${info.version} · ${mode} · ${transport} · ${info.platform} · Node ${info.versions.node}`}
        >
          {mode} <span className="mode-transport">· {transport}</span>
        </span>
        {info !== null && <span className="version">v{info.version}</span>}
        <ThemeSwitch />
        <OpenRunButton />
      </div>
    </header>
  );
}
