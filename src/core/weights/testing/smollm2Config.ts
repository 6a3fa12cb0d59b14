/** SmolLM2-135M-Instruct's config.json, the fields GateLab reads (grouped-query attention: 9 query heads, 3 key/value heads; 8,192 positions). */
export const SMOLLM2_135M_CONFIG = {
  architectures: ['LlamaForCausalLM'],
  hidden_size: 576,
  intermediate_size: 1536,
  max_position_embeddings: 8192,
  num_attention_heads: 9,
  num_hidden_layers: 30,
  num_key_value_heads: 3,
  rms_norm_eps: 1e-5,
  rope_theta: 100000,
  tie_word_embeddings: true,
  vocab_size: 49152,
};
