<?php
// rswoole library: Swoole\Http\Status (codes and reason phrases) and the Swoole\Coroutine\Http\get()/post()/request() helpers.
// Our own implementation of the documented API; compiled into the module at request start.

namespace Swoole\Http {
    abstract class Status
    {
        public const CONTINUE = 100;
        public const SWITCHING_PROTOCOLS = 101;
        public const PROCESSING = 102;
        public const OK = 200;
        public const CREATED = 201;
        public const ACCEPTED = 202;
        public const NON_AUTHORITATIVE_INFORMATION = 203;
        public const NO_CONTENT = 204;
        public const RESET_CONTENT = 205;
        public const PARTIAL_CONTENT = 206;
        public const MULTI_STATUS = 207;
        public const ALREADY_REPORTED = 208;
        public const IM_USED = 226;
        public const MULTIPLE_CHOICES = 300;
        public const MOVED_PERMANENTLY = 301;
        public const FOUND = 302;
        public const SEE_OTHER = 303;
        public const NOT_MODIFIED = 304;
        public const USE_PROXY = 305;
        public const SWITCH_PROXY = 306;
        public const TEMPORARY_REDIRECT = 307;
        public const PERMANENT_REDIRECT = 308;
        public const BAD_REQUEST = 400;
        public const UNAUTHORIZED = 401;
        public const PAYMENT_REQUIRED = 402;
        public const FORBIDDEN = 403;
        public const NOT_FOUND = 404;
        public const METHOD_NOT_ALLOWED = 405;
        public const NOT_ACCEPTABLE = 406;
        public const PROXY_AUTHENTICATION_REQUIRED = 407;
        public const REQUEST_TIME_OUT = 408;
        public const CONFLICT = 409;
        public const GONE = 410;
        public const LENGTH_REQUIRED = 411;
        public const PRECONDITION_FAILED = 412;
        public const REQUEST_ENTITY_TOO_LARGE = 413;
        public const REQUEST_URI_TOO_LARGE = 414;
        public const UNSUPPORTED_MEDIA_TYPE = 415;
        public const REQUESTED_RANGE_NOT_SATISFIABLE = 416;
        public const EXPECTATION_FAILED = 417;
        public const MISDIRECTED_REQUEST = 421;
        public const UNPROCESSABLE_ENTITY = 422;
        public const LOCKED = 423;
        public const FAILED_DEPENDENCY = 424;
        public const UNORDERED_COLLECTION = 425;
        public const UPGRADE_REQUIRED = 426;
        public const PRECONDITION_REQUIRED = 428;
        public const TOO_MANY_REQUESTS = 429;
        public const REQUEST_HEADER_FIELDS_TOO_LARGE = 431;
        public const UNAVAILABLE_FOR_LEGAL_REASONS = 451;
        public const INTERNAL_SERVER_ERROR = 500;
        public const NOT_IMPLEMENTED = 501;
        public const BAD_GATEWAY = 502;
        public const SERVICE_UNAVAILABLE = 503;
        public const GATEWAY_TIME_OUT = 504;
        public const HTTP_VERSION_NOT_SUPPORTED = 505;
        public const VARIANT_ALSO_NEGOTIATES = 506;
        public const INSUFFICIENT_STORAGE = 507;
        public const LOOP_DETECTED = 508;
        public const NOT_EXTENDED = 510;
        public const NETWORK_AUTHENTICATION_REQUIRED = 511;

        /** @var array<int, string> */
        protected static $reasonPhrases = [
            100 => 'Continue', 101 => 'Switching Protocols', 102 => 'Processing',
            200 => 'OK', 201 => 'Created', 202 => 'Accepted', 203 => 'Non-Authoritative Information',
            204 => 'No Content', 205 => 'Reset Content', 206 => 'Partial Content', 207 => 'Multi-status',
            208 => 'Already Reported', 226 => 'IM Used',
            300 => 'Multiple Choices', 301 => 'Moved Permanently', 302 => 'Found', 303 => 'See Other',
            304 => 'Not Modified', 305 => 'Use Proxy', 306 => 'Switch Proxy', 307 => 'Temporary Redirect',
            308 => 'Permanent Redirect',
            400 => 'Bad Request', 401 => 'Unauthorized', 402 => 'Payment Required', 403 => 'Forbidden',
            404 => 'Not Found', 405 => 'Method Not Allowed', 406 => 'Not Acceptable',
            407 => 'Proxy Authentication Required', 408 => 'Request Time-out', 409 => 'Conflict', 410 => 'Gone',
            411 => 'Length Required', 412 => 'Precondition Failed', 413 => 'Request Entity Too Large',
            414 => 'Request-URI Too Large', 415 => 'Unsupported Media Type', 416 => 'Requested range not satisfiable',
            417 => 'Expectation Failed', 421 => 'Misdirected Request', 422 => 'Unprocessable Entity', 423 => 'Locked',
            424 => 'Failed Dependency', 425 => 'Unordered Collection', 426 => 'Upgrade Required',
            428 => 'Precondition Required', 429 => 'Too Many Requests', 431 => 'Request Header Fields Too Large',
            451 => 'Unavailable For Legal Reasons',
            500 => 'Internal Server Error', 501 => 'Not Implemented', 502 => 'Bad Gateway', 503 => 'Service Unavailable',
            504 => 'Gateway Time-out', 505 => 'HTTP Version not supported', 506 => 'Variant Also Negotiates',
            507 => 'Insufficient Storage', 508 => 'Loop Detected', 510 => 'Not Extended',
            511 => 'Network Authentication Required',
        ];

        public static function getReasonPhrases(): array
        {
            return static::$reasonPhrases;
        }

        public static function getReasonPhrase(int $value): string
        {
            return static::$reasonPhrases[$value] ?? 'Unknown';
        }
    }
}

namespace Swoole\Coroutine\Http {
    use Swoole\Coroutine\Http\Client;
    use Swoole\Coroutine\Http\Client\Exception;

    /** What get()/post()/request() return: the body, status, headers and cookies of one answer. */
    class ClientProxy
    {
        private array $headers;

        private array $cookies;

        public function __construct(private string $body, private int $statusCode, ?array $headers, ?array $cookies)
        {
            $this->headers = $headers ?? [];
            $this->cookies = $cookies ?? [];
        }

        public function getBody(): string
        {
            return $this->body;
        }

        public function getStatusCode(): int
        {
            return $this->statusCode;
        }

        public function getHeaders(): array
        {
            return $this->headers;
        }

        public function getCookies(): array
        {
            return $this->cookies;
        }
    }

    /**
     * One HTTP request from a coroutine. The `http_client_driver` library option picks the transport: the
     * coroutine HTTP client (default), 'curl' or 'stream'. Throws Client\Exception on failure, as Swoole does.
     */
    function request(string $url, string $method, mixed $data = null, ?array $options = null,
        ?array $headers = null, ?array $cookies = null): ClientProxy
    {
        return match (swoole_library_get_option('http_client_driver')) {
            'curl' => request_with_curl($url, $method, $data, $options, $headers, $cookies),
            'stream' => request_with_stream($url, $method, $data, $options, $headers, $cookies),
            default => request_with_http_client($url, $method, $data, $options, $headers, $cookies),
        };
    }

    function request_with_http_client(string $url, string $method, mixed $data = null, ?array $options = null,
        ?array $headers = null, ?array $cookies = null): ClientProxy
    {
        $info = parse_url($url);
        if (empty($info['scheme'])) {
            throw new Exception('The URL given is illegal [no scheme]');
        }
        $ssl = match ($info['scheme']) {
            'http' => false,
            'https' => true,
            default => throw new Exception('unknown scheme "' . $info['scheme'] . '"'),
        };
        $client = new Client($info['host'] ?? '', (int) ($info['port'] ?? ($ssl ? 443 : 80)), $ssl);
        $client->setMethod($method);
        if ($data) {
            $client->setData($data);
        }
        $client->set($options ?: []);
        $client->setHeaders($headers ?: []);
        $client->setCookies($cookies ?: []);
        $path = $info['path'] ?? '/';
        if (!empty($info['query'])) {
            $path .= '?' . $info['query'];
        }
        if ($client->execute($path)) {
            return new ClientProxy((string) $client->getBody(), (int) $client->getStatusCode(),
                $client->getHeaders() ?: [], $client->getCookies() ?: []);
        }
        throw new Exception($client->errMsg, $client->errCode);
    }

    function request_with_curl(string $url, string $method, mixed $data = null, ?array $options = null,
        ?array $headers = null, ?array $cookies = null): ClientProxy
    {
        $ch = curl_init($url);
        if (empty($ch)) {
            throw new Exception('failed to curl_init');
        }
        curl_setopt($ch, CURLOPT_CUSTOMREQUEST, $method);
        curl_setopt($ch, CURLOPT_RETURNTRANSFER, true);
        if ($data) {
            curl_setopt($ch, CURLOPT_POSTFIELDS, $data);
        }
        $lines = [];
        foreach ($headers ?: [] as $k => $v) {
            $lines[] = "$k: $v";
        }
        if ($lines) {
            curl_setopt($ch, CURLOPT_HTTPHEADER, $lines);
        }
        if ($cookies) {
            $pairs = [];
            foreach ($cookies as $k => $v) {
                $pairs[] = $k . '=' . urlencode((string) $v);
            }
            curl_setopt($ch, CURLOPT_COOKIE, implode('; ', $pairs));
        }
        foreach ($options ?: [] as $k => $v) {
            if (is_int($k)) {
                curl_setopt($ch, $k, $v);
            } elseif ($k === 'timeout') {
                curl_setopt($ch, CURLOPT_TIMEOUT_MS, (int) ($v * 1000));
            }
        }
        $responseHeaders = [];
        $responseCookies = [];
        curl_setopt($ch, CURLOPT_HEADERFUNCTION, function ($ch, string $line) use (&$responseHeaders, &$responseCookies) {
            $pos = strpos($line, ':');
            if ($pos !== false) {
                $name = strtolower(trim(substr($line, 0, $pos)));
                $value = trim(substr($line, $pos + 1));
                if ($name === 'set-cookie') {
                    $pair = explode(';', $value, 2)[0];
                    [$ck, $cv] = array_pad(explode('=', $pair, 2), 2, '');
                    $responseCookies[trim($ck)] = urldecode(trim($cv));
                }
                $responseHeaders[$name] = $value;
            }
            return strlen($line);
        });
        $body = curl_exec($ch);
        if ($body !== false) {
            return new ClientProxy((string) $body, curl_getinfo($ch, CURLINFO_RESPONSE_CODE), $responseHeaders, $responseCookies);
        }
        throw new Exception(curl_error($ch), curl_errno($ch));
    }

    function request_with_stream(string $url, string $method, mixed $data = null, ?array $options = null,
        ?array $headers = null, ?array $cookies = null): ClientProxy
    {
        $http = ['method' => $method, 'ignore_errors' => true];
        $lines = [];
        foreach ($headers ?: [] as $k => $v) {
            $lines[] = "$k: $v";
        }
        if ($cookies) {
            $pairs = [];
            foreach ($cookies as $k => $v) {
                $pairs[] = $k . '=' . urlencode((string) $v);
            }
            $lines[] = 'Cookie: ' . implode('; ', $pairs);
        }
        if ($lines) {
            $http['header'] = implode("\r\n", $lines);
        }
        if ($data) {
            $http['content'] = is_array($data) ? http_build_query($data) : (string) $data;
        }
        if (isset($options['timeout'])) {
            $http['timeout'] = (float) $options['timeout'];
        }
        $body = @file_get_contents($url, false, stream_context_create(['http' => $http]));
        if ($body !== false) {
            return new ClientProxy($body, 200, [], []);
        }
        $error = error_get_last();
        throw new Exception($error['message'] ?? 'request failed');
    }

    function post(string $url, mixed $data, ?array $options = null, ?array $headers = null, ?array $cookies = null): ClientProxy
    {
        return request($url, 'POST', $data, $options, $headers, $cookies);
    }

    function get(string $url, ?array $options = null, ?array $headers = null, ?array $cookies = null): ClientProxy
    {
        return request($url, 'GET', null, $options, $headers, $cookies);
    }
}
