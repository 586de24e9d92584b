/**
 * A self-signed certificate for 127.0.0.1 and its key, for tests only (a probe must find it not valid),
 * made once with:
 * openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout key.pem -out cert.pem \
 *   -days 36500 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1
 */
export const SELF_SIGNED_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgnii9bi0zOdq66Oi5
2nOHmq0IxfKgzKYllsKOGJEuA9qhRANCAAS7KBHxYfTabP7bFo73PPQfN6TBvc/P
WyyCtyTWSW1IF4z07Jsw2210q17X3moQbXN7XgAGISHplAqYbd46rTsB
-----END PRIVATE KEY-----
`;

export const SELF_SIGNED_CERT = `-----BEGIN CERTIFICATE-----
MIIBkTCCATagAwIBAgIUHGE017tQkAIeCiSOrzHOc+VsWl8wCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJMTI3LjAuMC4xMCAXDTI2MTEyNTE2MTkyNFoYDzIxMjYxMTAx
MTYxOTI0WjAUMRIwEAYDVQQDDAkxMjcuMC4wLjEwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAAS7KBHxYfTabP7bFo73PPQfN6TBvc/PWyyCtyTWSW1IF4z07Jsw2210
q17X3moQbXN7XgAGISHplAqYbd46rTsBo2QwYjAdBgNVHQ4EFgQUnheiPvP91XDu
5d7fXKVpTd9Q+70wHwYDVR0jBBgwFoAUnheiPvP91XDu5d7fXKVpTd9Q+70wDwYD
VR0TAQH/BAUwAwEB/zAPBgNVHREECDAGhwR/AAABMAoGCCqGSM49BAMCA0kAMEYC
IQC8kJmgXDTGDsCoEI5F9H4zxCxmiQni5p2TGXqpXU6zVwIhAOAiKRqBM6EHzlbE
cTpWHBuBoIevLv7RQ2FTZ2wUUqhL
-----END CERTIFICATE-----
`;
