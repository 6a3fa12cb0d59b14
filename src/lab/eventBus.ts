import type { EventPayload, LabEventName, LogLevel } from '../contract';

export type LabEventListener = <E extends LabEventName>(event: E, payload: EventPayload<E>) => void;

/** The core's outgoing events; each transport subscribes once and forwards. */
export interface LabEventBus {
  emit<E extends LabEventName>(event: E, payload: EventPayload<E>): void;
  log(level: LogLevel, message: string): void;
  subscribe(listener: LabEventListener): () => void;
}

export function createLabEventBus(): LabEventBus {
  const listeners = new Set<LabEventListener>();
  const emit = <E extends LabEventName>(event: E, payload: EventPayload<E>): void => {
    for (const listener of listeners) {
      try {
        listener(event, payload);
      } catch {
        // One broken subscriber (a closed socket, a destroyed window) must not
        // stop the others or the call that emitted the event.
      }
    }
  };
  return {
    emit,
    log: (level, message) => emit('lab.log', { at: new Date().toISOString(), level, message }),
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
