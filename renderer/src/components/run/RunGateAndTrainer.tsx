import { useShallow } from 'zustand/react/shallow';
import type { RunView } from '../../../../src/contract/labRuns';
import { useLabRunStore } from '../../stores/labRunStore';
import { GateCard } from './GateCard';
import { TrainerCard } from './TrainerCard';

/** The gate of the run on screen, its decisions sent through the run store: one layout for a run's page and the Live page. */
export function RunGateCard({ run, canAct }: { run: RunView; canAct: boolean }) {
  const { pending, confirm, reject } = useLabRunStore(useShallow((s) => ({ pending: s.pending, confirm: s.confirm, reject: s.reject })));
  return (
    <GateCard
      header={run.header}
      candidates={run.candidates}
      pending={pending}
      canAct={canAct}
      onConfirm={(id) => void confirm(id)}
      onReject={(id, reason) => void reject(id, reason)}
    />
  );
}

/** The trainer's steps of the run on screen, with the recipe's batch, window and KL. */
export function RunTrainerCard({ run }: { run: RunView }) {
  const h = run.header;
  return <TrainerCard steps={run.trainerSteps} refused={run.refusedSteps} batchTurns={h.batchTurns} windowTurns={h.windowTurns} klCoef={h.klCoef} />;
}
