// The judge domain: the pass criterion on a first reply, and the PRM / hint
// judge that turns the next state into training signal.
export * from './criterion';
export * from './turnJudge';
export { pluralityVote, selectHint, type HintCandidate } from './votes';
export { TRAINING_MODES, dispatchTurn, trains, type TrainingMode, type TurnTraining } from './trainDispatch';
export { appendHintToLastUser, type ChatMessage } from './teacherInput';
export { createRulePrm, createRuleHintJudge, ruleScore, ruleHint } from './ruleJudge';
export { createLlmPrm, createLlmHintJudge, llmEndpointSchema, JudgeUnavailableError, type LlmEndpointConfig } from './llmJudge';
export { HINT_START, HINT_END, prmMessages, hintMessages, parsePrmVote, parseHintVote } from './llmPrompts';
export { createTurnJudge, type TurnJudgeOptions } from './createTurnJudge';
export { verdictSchema } from './verdictSchema';
