<?php
// rswoole library: the FastCGI protocol classes (Swoole\FastCGI\*), the coroutine FastCGI client and the php-fpm Proxy.
// Our own implementation of the API Swoole 6.2.2's PHP library documents (FastCGI 1.0: 8-byte record headers,
// name-value pairs with 1- or 4-byte lengths, records of at most 65535 content bytes padded to 8).

namespace Swoole {
    class FastCGI
    {
        public const HEADER_LEN = 8;
        public const HEADER_FORMAT = 'Cversion/Ctype/nrequestId/ncontentLength/CpaddingLength/Creserved';
        public const MAX_CONTENT_LENGTH = 65535;
        public const VERSION_1 = 1;
        public const BEGIN_REQUEST = 1;
        public const ABORT_REQUEST = 2;
        public const END_REQUEST = 3;
        public const PARAMS = 4;
        public const STDIN = 5;
        public const STDOUT = 6;
        public const STDERR = 7;
        public const DATA = 8;
        public const GET_VALUES = 9;
        public const GET_VALUES_RESULT = 10;
        public const UNKNOWN_TYPE = 11;
        public const DEFAULT_REQUEST_ID = 1;
        public const KEEP_CONN = 1;
        public const RESPONDER = 1;
        public const AUTHORIZER = 2;
        public const FILTER = 3;
        public const REQUEST_COMPLETE = 0;
        public const CANT_MPX_CONN = 1;
        public const OVERLOADED = 2;
        public const UNKNOWN_ROLE = 3;
    }
}

namespace Swoole\FastCGI {
    use Swoole\FastCGI;

    /** One FastCGI record: header fields and content; (string) gives its wire form. */
    class Record implements \Stringable
    {
        protected int $version = FastCGI::VERSION_1;
        protected int $type = FastCGI::UNKNOWN_TYPE;
        protected int $requestId = FastCGI::DEFAULT_REQUEST_ID;
        protected int $reserved1 = 0;
        protected string $contentData = '';

        final public function __toString(): string
        {
            $payload = $this->packPayload();
            $length = strlen($payload);
            $padding = (8 - $length % 8) % 8;
            return pack('CCnnCC', $this->version, $this->type, $this->requestId, $length, $padding, $this->reserved1)
                . $payload . str_repeat("\0", $padding);
        }

        /** A record of this class from its wire form (header, content and padding). */
        final public static function unpack(string $binaryData): static
        {
            $self = (new \ReflectionClass(static::class))->newInstanceWithoutConstructor();
            $h = unpack(FastCGI::HEADER_FORMAT, $binaryData);
            $self->version = $h['version'];
            $self->type = $h['type'];
            $self->requestId = $h['requestId'];
            $self->reserved1 = $h['reserved'];
            static::unpackPayload($self, substr($binaryData, FastCGI::HEADER_LEN, $h['contentLength']));
            return $self;
        }

        public function setContentData(string $data): self
        {
            $this->contentData = $data;
            return $this;
        }

        public function getContentData(): string
        {
            return $this->contentData;
        }

        public function getVersion(): int
        {
            return $this->version;
        }

        public function getType(): int
        {
            return $this->type;
        }

        public function getRequestId(): int
        {
            return $this->requestId;
        }

        public function setRequestId(int $requestId): self
        {
            $this->requestId = $requestId;
            return $this;
        }

        final public function getContentLength(): int
        {
            return strlen($this->packPayload());
        }

        final public function getPaddingLength(): int
        {
            return (8 - $this->getContentLength() % 8) % 8;
        }

        protected static function unpackPayload(self $self, string $binaryData): void
        {
            $self->contentData = $binaryData;
        }

        protected function packPayload(): string
        {
            return $this->contentData;
        }
    }

    /** Turns a byte buffer into records (the buffer keeps what is left). */
    class FrameParser
    {
        private const CLASSES = [
            FastCGI::BEGIN_REQUEST => Record\BeginRequest::class,
            FastCGI::ABORT_REQUEST => Record\AbortRequest::class,
            FastCGI::END_REQUEST => Record\EndRequest::class,
            FastCGI::PARAMS => Record\Params::class,
            FastCGI::STDIN => Record\Stdin::class,
            FastCGI::STDOUT => Record\Stdout::class,
            FastCGI::STDERR => Record\Stderr::class,
            FastCGI::DATA => Record\Data::class,
            FastCGI::GET_VALUES => Record\GetValues::class,
            FastCGI::GET_VALUES_RESULT => Record\GetValuesResult::class,
            FastCGI::UNKNOWN_TYPE => Record\UnknownType::class,
        ];

        /** Whether the buffer starts with a whole record. */
        public static function hasFrame(string $binaryBuffer): bool
        {
            if (strlen($binaryBuffer) < FastCGI::HEADER_LEN) {
                return false;
            }
            $h = unpack(FastCGI::HEADER_FORMAT, $binaryBuffer);
            return strlen($binaryBuffer) >= FastCGI::HEADER_LEN + $h['contentLength'] + $h['paddingLength'];
        }

        /** Takes the first record off the buffer. */
        public static function parseFrame(string &$binaryBuffer): Record
        {
            if (!static::hasFrame($binaryBuffer)) {
                throw new \RuntimeException('Not enough data in the buffer to parse');
            }
            $h = unpack(FastCGI::HEADER_FORMAT, $binaryBuffer);
            $class = self::CLASSES[$h['type']] ?? Record::class;
            $size = FastCGI::HEADER_LEN + $h['contentLength'] + $h['paddingLength'];
            $record = $class::unpack(substr($binaryBuffer, 0, $size));
            $binaryBuffer = (string) substr($binaryBuffer, $size);
            return $record;
        }
    }

    /** Params and body shared by requests and responses. */
    class Message
    {
        protected array $params = [];
        protected string $body = '';
        protected string $error = '';

        public function getParam(string $name): ?string
        {
            return $this->params[$name] ?? null;
        }

        public function withParam(string $name, string $value): static
        {
            $this->params[$name] = $value;
            return $this;
        }

        public function withoutParam(string $name): static
        {
            unset($this->params[$name]);
            return $this;
        }

        public function getParams(): array
        {
            return $this->params;
        }

        public function withParams(array $params): static
        {
            $this->params = $params;
            return $this;
        }

        public function withAddedParams(array $params): static
        {
            $this->params = $params + $this->params;
            return $this;
        }

        public function getBody(): string
        {
            return $this->body;
        }

        public function withBody(string|\Stringable $body): self
        {
            $this->body = (string) $body;
            return $this;
        }

        public function getError(): string
        {
            return $this->error;
        }

        public function withError(string $error): static
        {
            $this->error = $error;
            return $this;
        }
    }

    /** A responder request; (string) gives BEGIN_REQUEST, PARAMS (then empty), STDIN chunks (then empty). */
    class Request extends Message implements \Stringable
    {
        protected bool $keepConn = false;

        public function __toString(): string
        {
            $out = (string) new Record\BeginRequest(FastCGI::RESPONDER, $this->keepConn ? FastCGI::KEEP_CONN : 0);
            $out .= (string) new Record\Params($this->getParams());
            $out .= (string) new Record\Params([]);
            $body = $this->getBody();
            if ($body !== '') {
                foreach (str_split($body, FastCGI::MAX_CONTENT_LENGTH) as $chunk) {
                    $out .= (string) new Record\Stdin($chunk);
                }
                $out .= (string) new Record\Stdin('');
            }
            return $out;
        }

        public function getKeepConn(): bool
        {
            return $this->keepConn;
        }

        public function withKeepConn(bool $keepConn): self
        {
            $this->keepConn = $keepConn;
            return $this;
        }
    }

    /** The records of one answer: STDOUT is the body, STDERR the error, and the last one must be END_REQUEST. */
    class Response extends Message
    {
        public function __construct(array $records)
        {
            if (!static::verify($records)) {
                throw new \InvalidArgumentException('Bad records');
            }
            $body = '';
            $error = '';
            foreach ($records as $record) {
                if ($record instanceof Record\Stdout) {
                    $body .= $record->getContentData();
                } elseif ($record instanceof Record\Stderr) {
                    $error .= $record->getContentData();
                }
            }
            $this->withBody($body)->withError($error);
        }

        protected static function verify(array $records): bool
        {
            return $records !== [] && end($records) instanceof Record\EndRequest;
        }
    }

    /** A CGI/1.1 request: the usual params with defaults, and HTTP headers as HTTP_* params. */
    class HttpRequest extends Request
    {
        protected array $params = [
            'REQUEST_SCHEME' => 'http',
            'REQUEST_METHOD' => 'GET',
            'DOCUMENT_ROOT' => '',
            'SCRIPT_FILENAME' => '',
            'SCRIPT_NAME' => '',
            'DOCUMENT_URI' => '/',
            'REQUEST_URI' => '/',
            'QUERY_STRING' => '',
            'CONTENT_TYPE' => 'text/plain',
            'CONTENT_LENGTH' => '0',
            'GATEWAY_INTERFACE' => 'CGI/1.1',
            'SERVER_PROTOCOL' => 'HTTP/1.1',
            'SERVER_SOFTWARE' => 'swoole/' . SWOOLE_VERSION,
            'REMOTE_ADDR' => 'unknown',
            'REMOTE_PORT' => '0',
            'SERVER_ADDR' => 'unknown',
            'SERVER_PORT' => '0',
            'SERVER_NAME' => 'Swoole',
            'REDIRECT_STATUS' => '200',
        ];

        private function param(string $name): ?string
        {
            return $this->params[$name] ?? null;
        }

        private function set(string $name, string|int $value): self
        {
            $this->params[$name] = (string) $value;
            return $this;
        }

        public function getScheme(): ?string { return $this->param('REQUEST_SCHEME'); }
        public function withScheme(string $scheme): self { return $this->set('REQUEST_SCHEME', $scheme); }
        public function withoutScheme(): void { unset($this->params['REQUEST_SCHEME']); }
        public function getMethod(): ?string { return $this->param('REQUEST_METHOD'); }
        public function withMethod(string $method): self { return $this->set('REQUEST_METHOD', $method); }
        public function withoutMethod(): void { unset($this->params['REQUEST_METHOD']); }
        public function getDocumentRoot(): ?string { return $this->param('DOCUMENT_ROOT'); }
        public function withDocumentRoot(string $documentRoot): self { return $this->set('DOCUMENT_ROOT', $documentRoot); }
        public function withoutDocumentRoot(): void { unset($this->params['DOCUMENT_ROOT']); }
        public function getScriptFilename(): ?string { return $this->param('SCRIPT_FILENAME'); }
        public function withScriptFilename(string $scriptFilename): self { return $this->set('SCRIPT_FILENAME', $scriptFilename); }
        public function withoutScriptFilename(): void { unset($this->params['SCRIPT_FILENAME']); }
        public function getScriptName(): ?string { return $this->param('SCRIPT_NAME'); }
        public function withScriptName(string $scriptName): self { return $this->set('SCRIPT_NAME', $scriptName); }
        public function withoutScriptName(): void { unset($this->params['SCRIPT_NAME']); }

        /** REQUEST_URI, DOCUMENT_URI and QUERY_STRING from one URI. */
        public function withUri(string $uri): self
        {
            $info = parse_url($uri);
            return $this->withRequestUri($uri)->withDocumentUri($info['path'] ?? '')->withQueryString($info['query'] ?? '');
        }

        public function getDocumentUri(): ?string { return $this->param('DOCUMENT_URI'); }
        public function withDocumentUri(string $documentUri): self { return $this->set('DOCUMENT_URI', $documentUri); }
        public function withoutDocumentUri(): void { unset($this->params['DOCUMENT_URI']); }
        public function getRequestUri(): ?string { return $this->param('REQUEST_URI'); }
        public function withRequestUri(string $requestUri): self { return $this->set('REQUEST_URI', $requestUri); }
        public function withoutRequestUri(): void { unset($this->params['REQUEST_URI']); }

        public function withQuery($query): self
        {
            return $this->withQueryString(is_array($query) ? http_build_query($query) : (string) $query);
        }

        public function getQueryString(): ?string { return $this->param('QUERY_STRING'); }
        public function withQueryString(string $queryString): self { return $this->set('QUERY_STRING', $queryString); }
        public function withoutQueryString(): void { unset($this->params['QUERY_STRING']); }
        public function getContentType(): ?string { return $this->param('CONTENT_TYPE'); }
        public function withContentType(string $contentType): self { return $this->set('CONTENT_TYPE', $contentType); }
        public function withoutContentType(): void { unset($this->params['CONTENT_TYPE']); }

        public function getContentLength(): ?int
        {
            $v = $this->param('CONTENT_LENGTH');
            return $v === null ? null : (int) $v;
        }

        public function withContentLength(int $contentLength): self { return $this->set('CONTENT_LENGTH', $contentLength); }
        public function withoutContentLength(): void { unset($this->params['CONTENT_LENGTH']); }
        public function getGatewayInterface(): ?string { return $this->param('GATEWAY_INTERFACE'); }
        public function withGatewayInterface(string $gatewayInterface): self { return $this->set('GATEWAY_INTERFACE', $gatewayInterface); }
        public function withoutGatewayInterface(): void { unset($this->params['GATEWAY_INTERFACE']); }
        public function getServerProtocol(): ?string { return $this->param('SERVER_PROTOCOL'); }
        public function withServerProtocol(string $serverProtocol): self { return $this->set('SERVER_PROTOCOL', $serverProtocol); }
        public function withoutServerProtocol(): void { unset($this->params['SERVER_PROTOCOL']); }
        public function withProtocolVersion(string $protocolVersion): self
        {
            return $this->withServerProtocol(is_numeric($protocolVersion) ? "HTTP/{$protocolVersion}" : $protocolVersion);
        }
        public function getServerSoftware(): ?string { return $this->param('SERVER_SOFTWARE'); }
        public function withServerSoftware(string $serverSoftware): self { return $this->set('SERVER_SOFTWARE', $serverSoftware); }
        public function withoutServerSoftware(): void { unset($this->params['SERVER_SOFTWARE']); }
        public function getRemoteAddr(): ?string { return $this->param('REMOTE_ADDR'); }
        public function withRemoteAddr(string $remoteAddr): self { return $this->set('REMOTE_ADDR', $remoteAddr); }
        public function withoutRemoteAddr(): void { unset($this->params['REMOTE_ADDR']); }

        public function getRemotePort(): ?int
        {
            $v = $this->param('REMOTE_PORT');
            return $v === null ? null : (int) $v;
        }

        public function withRemotePort(int $remotePort): self { return $this->set('REMOTE_PORT', $remotePort); }
        public function withoutRemotePort(): void { unset($this->params['REMOTE_PORT']); }
        public function getServerAddr(): ?string { return $this->param('SERVER_ADDR'); }
        public function withServerAddr(string $serverAddr): self { return $this->set('SERVER_ADDR', $serverAddr); }
        public function withoutServerAddr(): void { unset($this->params['SERVER_ADDR']); }

        public function getServerPort(): ?int
        {
            $v = $this->param('SERVER_PORT');
            return $v === null ? null : (int) $v;
        }

        public function withServerPort(int $serverPort): self { return $this->set('SERVER_PORT', $serverPort); }
        public function withoutServerPort(): void { unset($this->params['SERVER_PORT']); }
        public function getServerName(): ?string { return $this->param('SERVER_NAME'); }
        public function withServerName(string $serverName): self { return $this->set('SERVER_NAME', $serverName); }
        public function withoutServerName(): void { unset($this->params['SERVER_NAME']); }
        public function getRedirectStatus(): ?string { return $this->param('REDIRECT_STATUS'); }
        public function withRedirectStatus(string $redirectStatus): self { return $this->set('REDIRECT_STATUS', $redirectStatus); }
        public function withoutRedirectStatus(): void { unset($this->params['REDIRECT_STATUS']); }

        public function getHeader(string $name): ?string
        {
            return $this->params[static::convertHeaderNameToParamName($name)] ?? null;
        }

        public function withHeader(string $name, string $value): self
        {
            $this->params[static::convertHeaderNameToParamName($name)] = $value;
            return $this;
        }

        public function withoutHeader(string $name): void
        {
            unset($this->params[static::convertHeaderNameToParamName($name)]);
        }

        public function getHeaders(): array
        {
            $headers = [];
            foreach ($this->params as $name => $value) {
                if (str_starts_with($name, 'HTTP_')) {
                    $headers[static::convertParamNameToHeaderName($name)] = $value;
                }
            }
            return $headers;
        }

        public function withHeaders(array $headers): self
        {
            foreach ($headers as $name => $value) {
                $this->withHeader((string) $name, (string) $value);
            }
            return $this;
        }

        /** The body; an array is form-encoded. CONTENT_LENGTH follows it. */
        public function withBody(array|string|\Stringable $body): self
        {
            if (is_array($body)) {
                $body = http_build_query($body);
                $this->withContentType('application/x-www-form-urlencoded');
            }
            $body = (string) $body;
            parent::withBody($body);
            return $this->withContentLength(strlen($body));
        }

        protected static function convertHeaderNameToParamName(string $name)
        {
            return 'HTTP_' . strtoupper(str_replace('-', '_', $name));
        }

        protected static function convertParamNameToHeaderName(string $name)
        {
            return ucwords(strtolower(str_replace('_', '-', substr($name, 5))), '-');
        }
    }

    /** A CGI answer: "Status:" and the other header lines, then the body. */
    class HttpResponse extends Response
    {
        /** @var int */
        protected $statusCode = 200;

        /** @var string */
        protected $reasonPhrase = 'OK';

        protected array $headers = [];

        /** lower-case name => name as sent */
        protected array $headersMap = [];

        protected array $setCookieHeaderLines = [];

        public function __construct(array $records = [])
        {
            parent::__construct($records);
            $raw = $this->getBody();
            if ($raw === '') {
                return;
            }
            $split = preg_split("/\r?\n\r?\n/", $raw, 2);
            if (count($split) !== 2) {
                $this->withStatusCode(\Swoole\Http\Status::BAD_GATEWAY)->withReasonPhrase('Invalid FastCGI Response')->withError($raw);
                return;
            }
            [$head, $body] = $split;
            $status = null;
            $reason = null;
            foreach (preg_split("/\r?\n/", $head) as $line) {
                $pair = explode(':', $line, 2);
                if (count($pair) !== 2) {
                    continue;
                }
                $name = trim($pair[0]);
                $value = trim($pair[1]);
                if (strcasecmp($name, 'Status') === 0) {
                    $parts = explode(' ', $value, 2);
                    $status = (int) $parts[0];
                    $reason = $parts[1] ?? null;
                } elseif (strcasecmp($name, 'Set-Cookie') === 0) {
                    $this->withSetCookieHeaderLine($value);
                } else {
                    $this->withHeader($name, $value);
                }
            }
            $status ??= \Swoole\Http\Status::OK;
            $this->withStatusCode($status)->withReasonPhrase($reason ?? \Swoole\Http\Status::getReasonPhrase($status));
            $this->withBody($body);
        }

        public function getStatusCode(): int
        {
            return $this->statusCode;
        }

        public function withStatusCode(int $statusCode): self
        {
            $this->statusCode = $statusCode;
            return $this;
        }

        public function getReasonPhrase(): string
        {
            return $this->reasonPhrase;
        }

        public function withReasonPhrase(string $reasonPhrase): self
        {
            $this->reasonPhrase = $reasonPhrase;
            return $this;
        }

        public function getHeader(string $name): ?string
        {
            $sent = $this->headersMap[strtolower($name)] ?? null;
            return $sent === null ? null : $this->headers[$sent];
        }

        public function getHeaders(): array
        {
            return $this->headers;
        }

        public function withHeader(string $name, string $value): self
        {
            $this->headers[$name] = $value;
            $this->headersMap[strtolower($name)] = $name;
            return $this;
        }

        public function withHeaders(array $headers): self
        {
            foreach ($headers as $name => $value) {
                $this->withHeader((string) $name, (string) $value);
            }
            return $this;
        }

        public function getSetCookieHeaderLines(): array
        {
            return $this->setCookieHeaderLines;
        }

        public function withSetCookieHeaderLine(string $value): self
        {
            $this->setCookieHeaderLines[] = $value;
            return $this;
        }
    }
}

namespace Swoole\FastCGI\Record {
    use Swoole\FastCGI;
    use Swoole\FastCGI\Record;

    /** Name-value pairs (PARAMS); lengths take 1 byte below 128, else 4 with the high bit set. */
    class Params extends Record
    {
        protected array $values = [];

        public function __construct(array $values)
        {
            $this->type = FastCGI::PARAMS;
            $this->values = $values;
        }

        public function getValues(): array
        {
            return $this->values;
        }

        protected static function unpackPayload(Record $self, string $binaryData): void
        {
            $values = [];
            $at = 0;
            $end = strlen($binaryData);
            $len = static function () use ($binaryData, &$at): int {
                $b = ord($binaryData[$at]);
                if ($b < 0x80) {
                    $at++;
                    return $b;
                }
                $n = unpack('N', substr($binaryData, $at, 4))[1] & 0x7fffffff;
                $at += 4;
                return $n;
            };
            while ($at < $end) {
                $nameLen = $len();
                $valueLen = $len();
                $name = substr($binaryData, $at, $nameLen);
                $at += $nameLen;
                $values[$name] = substr($binaryData, $at, $valueLen);
                $at += $valueLen;
            }
            $self->values = $values;
            $self->contentData = $binaryData;
        }

        protected function packPayload(): string
        {
            $out = '';
            foreach ($this->values as $name => $value) {
                $name = (string) $name;
                $value = (string) $value;
                foreach ([strlen($name), strlen($value)] as $n) {
                    $out .= $n < 0x80 ? chr($n) : pack('N', $n | 0x80000000);
                }
                $out .= $name . $value;
            }
            return $out;
        }
    }

    class GetValues extends Params
    {
        public function __construct(array $keys)
        {
            parent::__construct(array_fill_keys($keys, ''));
            $this->type = FastCGI::GET_VALUES;
            $this->requestId = 0;
        }
    }

    class GetValuesResult extends Params
    {
        public function __construct(array $values)
        {
            parent::__construct($values);
            $this->type = FastCGI::GET_VALUES_RESULT;
            $this->requestId = 0;
        }
    }

    class BeginRequest extends Record
    {
        protected int $role = FastCGI::UNKNOWN_ROLE;
        protected int $flags = 0;
        protected string $reserved2 = '';

        public function __construct(int $role = FastCGI::UNKNOWN_ROLE, int $flags = 0, string $reserved = '')
        {
            $this->type = FastCGI::BEGIN_REQUEST;
            $this->role = $role;
            $this->flags = $flags;
            $this->reserved2 = $reserved;
        }

        public function getRole(): int
        {
            return $this->role;
        }

        public function getFlags(): int
        {
            return $this->flags;
        }

        protected static function unpackPayload(Record $self, string $binaryData): void
        {
            $v = unpack('nrole/Cflags/a5reserved', str_pad($binaryData, 8, "\0"));
            $self->role = $v['role'];
            $self->flags = $v['flags'];
            $self->reserved2 = $v['reserved'];
        }

        protected function packPayload(): string
        {
            return pack('nCa5', $this->role, $this->flags, $this->reserved2);
        }
    }

    class AbortRequest extends Record
    {
        public function __construct(int $requestId)
        {
            $this->type = FastCGI::ABORT_REQUEST;
            $this->requestId = $requestId;
        }
    }

    class EndRequest extends Record
    {
        protected int $appStatus = 0;
        protected int $protocolStatus = FastCGI::REQUEST_COMPLETE;
        protected string $reserved3 = '';

        public function __construct(int $protocolStatus = FastCGI::REQUEST_COMPLETE, int $appStatus = 0, string $reserved = '')
        {
            $this->type = FastCGI::END_REQUEST;
            $this->protocolStatus = $protocolStatus;
            $this->appStatus = $appStatus;
            $this->reserved3 = $reserved;
        }

        public function getAppStatus(): int
        {
            return $this->appStatus;
        }

        public function getProtocolStatus(): int
        {
            return $this->protocolStatus;
        }

        protected static function unpackPayload(Record $self, string $binaryData): void
        {
            $v = unpack('NappStatus/CprotocolStatus/a3reserved', str_pad($binaryData, 8, "\0"));
            $self->appStatus = $v['appStatus'];
            $self->protocolStatus = $v['protocolStatus'];
            $self->reserved3 = $v['reserved'];
        }

        protected function packPayload(): string
        {
            return pack('NCa3', $this->appStatus, $this->protocolStatus, $this->reserved3);
        }
    }

    class Stdin extends Record
    {
        public function __construct(string $contentData)
        {
            $this->type = FastCGI::STDIN;
            $this->contentData = $contentData;
        }
    }

    class Stdout extends Record
    {
        public function __construct(string $contentData)
        {
            $this->type = FastCGI::STDOUT;
            $this->contentData = $contentData;
        }
    }

    class Stderr extends Record
    {
        public function __construct(string $contentData)
        {
            $this->type = FastCGI::STDERR;
            $this->contentData = $contentData;
        }
    }

    class Data extends Record
    {
        public function __construct(string $contentData)
        {
            $this->type = FastCGI::DATA;
            $this->contentData = $contentData;
        }
    }

    class UnknownType extends Record
    {
        protected int $type1 = 0;
        protected string $reserved2 = '';

        public function __construct(int $type, string $reserved = '')
        {
            $this->type = FastCGI::UNKNOWN_TYPE;
            $this->type1 = $type;
            $this->reserved2 = $reserved;
        }

        public function getUnrecognizedType(): int
        {
            return $this->type1;
        }

        public static function unpackPayload(Record $self, string $binaryData): void
        {
            $v = unpack('Ctype/a7reserved', str_pad($binaryData, 8, "\0"));
            $self->type1 = $v['type'];
            $self->reserved2 = $v['reserved'];
        }

        protected function packPayload(): string
        {
            return pack('Ca7', $this->type1, $this->reserved2);
        }
    }
}

namespace Swoole\Coroutine\FastCGI\Client {
    class Exception extends \Swoole\Exception
    {
    }
}

namespace Swoole\Coroutine\FastCGI {
    use Swoole\Coroutine\FastCGI\Client\Exception;
    use Swoole\FastCGI\FrameParser;
    use Swoole\FastCGI\HttpRequest;
    use Swoole\FastCGI\HttpResponse;
    use Swoole\FastCGI\Record\EndRequest;
    use Swoole\FastCGI\Request;
    use Swoole\FastCGI\Response;
    use Swoole\Http\Request as SwooleHttpRequest;
    use Swoole\Http\Response as SwooleHttpResponse;

    /**
     * A FastCGI client (php-fpm). Over Swoole\Coroutine\Socket inside a coroutine; over a PHP stream socket
     * elsewhere (which the runtime hooks make coroutine-aware too).
     */
    class Client
    {
        protected int $af;
        protected string $host;
        protected int $port;
        protected bool $ssl;
        /** @var \Swoole\Coroutine\Socket|resource|null */
        protected $socket = null;
        protected int $errCode = 0;
        protected string $errMsg = '';

        public function __construct(string $host, int $port = 0, bool $ssl = false)
        {
            if (stripos($host, 'unix:/') === 0) {
                $this->af = AF_UNIX;
                $host = '/' . ltrim(substr($host, 6), '/');
                $port = 0;
            } elseif (str_contains($host, ':')) {
                $this->af = AF_INET6;
            } else {
                $this->af = AF_INET;
            }
            $this->host = $host;
            $this->port = $port;
            $this->ssl = $ssl;
        }

        /** Sends the request and reads records up to END_REQUEST; an HttpResponse for an HttpRequest. */
        public function execute(Request $request, float $timeout = -1): Response
        {
            if ($this->socket === null) {
                $this->open($timeout);
            }
            $data = (string) $request;
            $this->write($data, $timeout);
            $records = [];
            $buffer = '';
            while (true) {
                while (FrameParser::hasFrame($buffer)) {
                    $records[] = $record = FrameParser::parseFrame($buffer);
                    if ($record instanceof EndRequest) {
                        if (!$request->getKeepConn()) {
                            $this->shut();
                        }
                        return $request instanceof HttpRequest ? new HttpResponse($records) : new Response($records);
                    }
                }
                $chunk = $this->read($timeout);
                if ($chunk === '') {
                    $this->ioException(SOCKET_ECONNRESET);
                }
                $buffer .= $chunk;
            }
        }

        /** [host, port] from "tcp://host:port", "host:port" or a unix socket path ("unix:/path" as host). */
        public static function parseUrl(string $url): array
        {
            $info = parse_url($url);
            $host = $info['host'] ?? '';
            $port = $info['port'] ?? 0;
            if ($host === '') {
                $host = $info['path'] ?? '';
                if ($host === '') {
                    throw new \InvalidArgumentException('Invalid url');
                }
                $host = "unix:/{$host}";
            }
            return [$host, $port];
        }

        /** Runs one script (GET, or POST when $data is given) and gives its body. */
        public static function call(string $url, string $path, $data = '', float $timeout = -1): string
        {
            $client = new Client(...static::parseUrl($url));
            $info = parse_url($path);
            $file = $info['path'] ?? '';
            $query = $info['query'] ?? '';
            $uri = '/' . basename($file);
            $request = (new HttpRequest())
                ->withDocumentRoot(dirname($file))
                ->withScriptFilename($file)
                ->withScriptName($uri)
                ->withDocumentUri($uri)
                ->withRequestUri($query === '' ? $uri : "{$uri}?{$query}")
                ->withQueryString($query)
                ->withBody($data);
            $request->withMethod($request->getContentLength() === 0 ? 'GET' : 'POST');
            return $client->execute($request, $timeout)->getBody();
        }

        protected function ioException(?int $errno = null): void
        {
            if ($errno !== null) {
                $this->errCode = $errno;
                $this->errMsg = swoole_strerror($errno);
            }
            $this->shut();
            throw new Exception($this->errMsg, $this->errCode);
        }

        private function coroutineSocket(): bool
        {
            return class_exists(\Swoole\Coroutine\Socket::class, false) && \Swoole\Coroutine::getCid() > 0;
        }

        private function open(float $timeout): void
        {
            if ($this->coroutineSocket()) {
                $socket = new \Swoole\Coroutine\Socket($this->af, SOCK_STREAM, 0);
                $this->socket = $socket;
                if (!$socket->connect($this->host, $this->port, $timeout)) {
                    $this->errCode = $socket->errCode;
                    $this->errMsg = $socket->errMsg;
                    $this->ioException();
                }
                return;
            }
            $target = $this->af === AF_UNIX ? "unix://{$this->host}"
                : ($this->af === AF_INET6 ? "tcp://[{$this->host}]:{$this->port}" : "tcp://{$this->host}:{$this->port}");
            $stream = @stream_socket_client($target, $errno, $errstr, $timeout > 0 ? $timeout : (float) ini_get('default_socket_timeout'));
            if ($stream === false) {
                $this->errCode = $errno ?: SOCKET_ECONNREFUSED;
                $this->errMsg = $errstr !== '' ? $errstr : swoole_strerror($this->errCode);
                $this->ioException();
            }
            if ($timeout > 0) {
                stream_set_timeout($stream, (int) $timeout, (int) (fmod($timeout, 1) * 1e6));
            }
            $this->socket = $stream;
        }

        private function write(string $data, float $timeout): void
        {
            if ($this->socket instanceof \Swoole\Coroutine\Socket) {
                if ($this->socket->sendAll($data, $timeout) !== strlen($data)) {
                    $this->errCode = $this->socket->errCode;
                    $this->errMsg = $this->socket->errMsg;
                    $this->ioException();
                }
                return;
            }
            for ($done = 0; $done < strlen($data); $done += $n) {
                $n = @fwrite($this->socket, substr($data, $done));
                if ($n === false || $n === 0) {
                    $this->ioException(SOCKET_EPIPE);
                }
            }
        }

        private function read(float $timeout): string
        {
            if ($this->socket instanceof \Swoole\Coroutine\Socket) {
                $chunk = $this->socket->recv(65536, $timeout);
                if ($chunk === false) {
                    $this->errCode = $this->socket->errCode;
                    $this->errMsg = $this->socket->errMsg;
                    $this->ioException();
                }
                return $chunk;
            }
            $chunk = @fread($this->socket, 65536);
            if ($chunk === false || ($chunk === '' && stream_get_meta_data($this->socket)['timed_out'])) {
                $this->ioException(SOCKET_ETIMEDOUT);
            }
            return $chunk;
        }

        private function shut(): void
        {
            if ($this->socket instanceof \Swoole\Coroutine\Socket) {
                $this->socket->close();
            } elseif (is_resource($this->socket)) {
                fclose($this->socket);
            }
            $this->socket = null;
        }
    }

    /** Serves a Swoole\Http\Request from php-fpm (like nginx's fastcgi_pass), static files from the document root. */
    class Proxy
    {
        protected $host;
        protected $port;
        protected $timeout = -1;
        protected $documentRoot;
        protected $https = false;
        protected $index = 'index.php';
        protected $params = [];
        /** @var callable|null */
        protected $staticFileFilter;

        public function __construct(string $url, string $documentRoot = '/')
        {
            [$this->host, $this->port] = Client::parseUrl($url);
            $this->documentRoot = $documentRoot;
            $this->staticFileFilter = [$this, 'staticFileFiltrate'];
        }

        public function withTimeout(float $timeout): self
        {
            $this->timeout = $timeout;
            return $this;
        }

        public function withHttps(bool $https): self
        {
            $this->https = $https;
            return $this;
        }

        public function withIndex(string $index): self
        {
            $this->index = $index;
            return $this;
        }

        public function getParam(string $name): ?string
        {
            return $this->params[$name] ?? null;
        }

        public function withParam(string $name, string $value): self
        {
            $this->params[$name] = $value;
            return $this;
        }

        public function withoutParam(string $name): self
        {
            unset($this->params[$name]);
            return $this;
        }

        public function getParams(): array
        {
            return $this->params;
        }

        public function withParams(array $params): self
        {
            $this->params = $params;
            return $this;
        }

        public function withAddedParams(array $params): self
        {
            $this->params = $params + $this->params;
            return $this;
        }

        public function withStaticFileFilter(?callable $filter): self
        {
            $this->staticFileFilter = $filter;
            return $this;
        }

        /** The CGI request for a Swoole request: script from the path (plus the index for a directory), headers, body. */
        public function translateRequest(SwooleHttpRequest $userRequest): HttpRequest
        {
            $server = $userRequest->server;
            $headers = $userRequest->header ?? [];
            $path = '/' . ltrim((string) ($server['path_info'] ?? $server['request_uri'] ?? '/'), '/');
            if ($this->index !== '' && pathinfo($path, PATHINFO_EXTENSION) === '') {
                $path = rtrim($path, '/') . '/' . $this->index;
            }
            $uri = (string) ($server['request_uri'] ?? '/');
            $query = (string) ($server['query_string'] ?? '');
            $request = (new HttpRequest())
                ->withDocumentRoot($this->documentRoot)
                ->withScriptFilename(rtrim($this->documentRoot, '/') . $path)
                ->withScriptName($uri)
                ->withDocumentUri($uri)
                ->withServerProtocol((string) ($server['server_protocol'] ?? 'HTTP/1.1'))
                ->withServerAddr((string) ($server['server_addr'] ?? '127.0.0.1'))
                ->withServerPort((int) ($server['server_port'] ?? 0))
                ->withRemoteAddr((string) ($server['remote_addr'] ?? 'unknown'))
                ->withRemotePort((int) ($server['remote_port'] ?? 0))
                ->withMethod((string) ($server['request_method'] ?? 'GET'))
                ->withRequestUri($query === '' ? $uri : "{$uri}?{$query}")
                ->withQueryString($query)
                ->withContentType((string) ($headers['content-type'] ?? ''))
                ->withHeaders($headers)
                ->withBody((string) $userRequest->rawContent())
                ->withAddedParams($this->params);
            // The server takes the Cookie header out of $request->header into $request->cookie (as Swoole does);
            // php-fpm needs it back as HTTP_COOKIE to fill $_COOKIE.
            if (!isset($headers['cookie']) && !empty($userRequest->cookie)) {
                $pairs = [];
                foreach ($userRequest->cookie as $name => $value) {
                    $pairs[] = $name . '=' . rawurlencode((string) $value);
                }
                $request->withHeader('Cookie', implode('; ', $pairs));
            }
            if (isset($headers['host'])) {
                $request->withServerName(explode(':', (string) $headers['host'])[0]);
            }
            if ($this->https) {
                $request->withParam('HTTPS', '1')->withScheme('https');
            }
            return $request;
        }

        /** Status, headers, cookies and body of php-fpm's answer onto the Swoole response. */
        public function translateResponse(HttpResponse $response, SwooleHttpResponse $userResponse): void
        {
            $userResponse->status($response->getStatusCode(), $response->getReasonPhrase());
            foreach ($response->getHeaders() as $name => $value) {
                $userResponse->header($name, $value);
            }
            if ($lines = $response->getSetCookieHeaderLines()) {
                $userResponse->header('Set-Cookie', $lines);
            }
            $userResponse->end($response->getBody());
        }

        public function pass(SwooleHttpRequest|HttpRequest $userRequest, SwooleHttpResponse $userResponse): void
        {
            $request = $userRequest instanceof HttpRequest ? $userRequest : $this->translateRequest($userRequest);
            if ($this->staticFileFilter && ($this->staticFileFilter)($request, $userResponse)) {
                return;
            }
            $response = (new Client($this->host, (int) $this->port))->execute($request, $this->timeout);
            $this->translateResponse($response, $userResponse);
        }

        /** Sends a non-PHP file under the document root itself (404 when there is none); true when it answered. */
        public function staticFileFiltrate(HttpRequest $request, SwooleHttpResponse $userResponse): bool
        {
            $file = (string) $request->getScriptFilename();
            if (pathinfo($file, PATHINFO_EXTENSION) === 'php') {
                return false;
            }
            $real = realpath($file);
            $root = realpath($this->documentRoot) ?: $this->documentRoot;
            if ($real === false || !str_starts_with($real, rtrim($root, '/') . '/') || !is_file($real)) {
                $userResponse->status(\Swoole\Http\Status::NOT_FOUND);
                $userResponse->end();
            } else {
                $userResponse->sendfile($real);
            }
            return true;
        }
    }
}

namespace {
    if (SWOOLE_USE_SHORTNAME) {
        class_alias(Swoole\Coroutine\FastCGI\Client::class, 'Co\FastCGI\Client');
        class_alias(Swoole\Coroutine\FastCGI\Client\Exception::class, 'Co\FastCGI\Client\Exception');
        class_alias(Swoole\Coroutine\FastCGI\Proxy::class, 'Co\FastCGI\Proxy');
    }
}
