import { useShallow } from 'zustand/react/shallow';
import { useAppStore } from '../stores/appStore';
import { OpenRunButton } from './OpenRunButton';

export function TopBar() {
  const { info } = useAppStore(useShallow((state) => ({ info: state.info })));
  const mode =
    info === null ? 'connecting…' : info.mode === 'electron' ? 'Electron · IPC' : 'Browser mode · 127.0.0.1 · HTTP + WebSocket';
  return (
    <header className="topbar">
      <div className="brand">
        <svg className="brand-mark" viewBox="0 0 32 32" aria-hidden="true">
          <rect x="2" y="2" width="28" height="28" rx="7" fill="#1f6feb" />
          <path d="M9 22 L14 14 L18 18 L24 9" stroke="#fff" strokeWidth="2.6" fill="none" strokeLinecap="round" strokeLinejoin="round" />
          <rect x="7" y="6" width="2.4" height="20" rx="1.2" fill="#e3b341" />
        </svg>
        <span className="brand-name">GateLab</span>
        <span className="brand-sub">Curve viewer</span>
      </div>
      <div className="topbar-right">
        <span className="mode-badge" data-testid="mode-badge" title={info === null ? '' : `${info.platform} · Node ${info.versions.node}`}>
          {mode}
        </span>
        {info !== null && <span className="version">v{info.version}</span>}
        <OpenRunButton />
      </div>
    </header>
  );
}
