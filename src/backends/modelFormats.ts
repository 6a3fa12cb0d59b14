/**
 * The formats of the models policies serve and trainers train (a policy
 * part's `modelFormat`, a trainer part's `trains`): a recipe whose trainer
 * cannot train its policy's model is refused before anything starts.
 */

/** The embedded policy's onnx folder with its manifest (assets/models/policy). */
export const EMBEDDED_ONNX = 'embedded-onnx';

/** A Hugging Face model folder (config.json, safetensors, tokenizer): what vLLM and SGLang serve and torch trains. */
export const HUGGING_FACE = 'huggingface';
