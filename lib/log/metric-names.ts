/** The CloudWatch namespace of the service's own metrics (`./metrics.ts`; the stack's dashboard reads it). */
export const METRIC_NAMESPACE = 'AuthCore';
