/**
 * ‖B·A‖²_F without forming the [out,in] product: trace((BᵀB)(AAᵀ)), two r×r
 * Gram matrices (r is small), both symmetric, so the trace is Σ G₁∘G₂.
 * A is [rank, in], B is [out, rank], row-major. The gate's update-norm bound
 * and the trainers' norm budgets use it.
 */
export function loraUpdateSquaredNorm(A: ArrayLike<number>, B: ArrayLike<number>, rank: number, inDim: number, outDim: number): number {
  let total = 0;
  for (let i = 0; i < rank; i++) {
    for (let j = 0; j < rank; j++) {
      let aa = 0; // (A Aᵀ)_ij
      for (let k = 0; k < inDim; k++) aa += (A[i * inDim + k] ?? 0) * (A[j * inDim + k] ?? 0);
      let bb = 0; // (Bᵀ B)_ij
      for (let k = 0; k < outDim; k++) bb += (B[k * rank + i] ?? 0) * (B[k * rank + j] ?? 0);
      total += aa * bb;
    }
  }
  return total;
}
