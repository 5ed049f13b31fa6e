/**
 * The Content-Security-Policy nonce of the page being rendered on the server (ADR 067): the
 * inline scripts React Router writes carry it. In the browser it is empty: those scripts already ran.
 */
import { createContext, useContext } from 'react';

export const NonceContext = createContext<string | undefined>(undefined);

export const useNonce = (): string | undefined => useContext(NonceContext);
