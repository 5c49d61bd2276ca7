import { DurableObject } from "cloudflare:workers";

/** Stub: the adaptive concurrency shared per tenant and model endpoint (issue 19). */
export class EndpointLimiter extends DurableObject<Env> {}
