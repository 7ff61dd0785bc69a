/** The part of jStat (a CommonJS statistics library without type declarations) Vesta uses. */
declare module 'jstat' {
  interface Distribution {
    /** The p-quantile (inverse CDF). */
    inv(p: number, ...parameters: number[]): number;
    cdf(x: number, ...parameters: number[]): number;
  }
  const jStat: { studentt: Distribution; normal: Distribution };
  export default jStat;
}
