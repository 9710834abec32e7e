--TEST--
swoole_http_request: create() + parse() read raw HTTP in pieces; the bytes after the message are not taken
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
$r = Swoole\Http\Request::create();
var_dump($r instanceof Swoole\Http\Request, $r->header, $r->server, $r->get, $r->isCompleted(), $r->fd);
// A head in two pieces, then a byte that belongs to the next message.
var_dump($r->parse("GET /a%20b?x=1&y[]=2 HTTP/1.1\r\nHost: ex"));
var_dump($r->isCompleted(), $r->getMethod());
var_dump($r->parse("ample.com\r\nCookie: a=1; b=2\r\nX-Foo: bar\r\nX-Foo: baz\r\n\r\nNEXT"));
var_dump($r->isCompleted(), $r->header['host'], $r->header['x-foo'], isset($r->header['cookie']));
$s = $r->server;
echo $s['request_method'], ' ', $s['request_uri'], ' ', $s['path_info'], ' ', $s['query_string'], ' ', $s['server_protocol'], "\n";
var_dump(is_int($s['request_time']), is_float($s['request_time_float']), isset($s['remote_addr']));
echo json_encode($r->get), ' ', json_encode($r->cookie), "\n";
var_dump($r->getContent(), strlen($r->getData()));
var_dump($r->parse('more'));

// A body in two pieces; parse_cookie off leaves Cookie among the headers.
$p = Swoole\Http\Request::create(['parse_cookie' => false]);
var_dump($p->parse("POST /f HTTP/1.0\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 7\r\nCookie: z=1\r\n\r\na=1"));
var_dump($p->isCompleted(), $p->getContent());
var_dump($p->parse("&b=2xx"));
var_dump($p->isCompleted(), $p->rawContent(), $p->post, $p->cookie, $p->header['cookie'], $p->getMethod(), $p->server['server_protocol']);

// Chunked.
$c = Swoole\Http\Request::create();
var_dump($c->parse("PUT /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n"), $c->isCompleted());
var_dump($c->parse("2\r\nde\r\n0\r\n\r\n"), $c->isCompleted(), $c->getContent(), $c->getMethod());

// Not HTTP.
$e = Swoole\Http\Request::create();
var_dump($e->parse("garbage\r\n\r\n"), $e->isCompleted());
?>
--EXPECT--
bool(true)
array(0) {
}
array(0) {
}
NULL
bool(false)
int(0)
int(39)
bool(false)
string(3) "GET"
int(55)
bool(true)
string(11) "example.com"
array(2) {
  [0]=>
  string(3) "bar"
  [1]=>
  string(3) "baz"
}
bool(false)
GET /a%20b /a b x=1&y[]=2 HTTP/1.1
bool(true)
bool(true)
bool(false)
{"x":"1","y":["2"]} {"a":"1","b":"2"}
string(0) ""
int(98)
bool(false)
int(104)
bool(false)
string(3) "a=1"
int(4)
bool(true)
string(7) "a=1&b=2"
array(2) {
  ["a"]=>
  string(1) "1"
  ["b"]=>
  string(1) "2"
}
NULL
string(3) "z=1"
string(4) "POST"
string(8) "HTTP/1.0"
int(55)
bool(false)
int(12)
bool(true)
string(5) "abcde"
string(3) "PUT"
int(0)
bool(false)
