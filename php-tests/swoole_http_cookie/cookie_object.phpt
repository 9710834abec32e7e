--TEST--
swoole_http_cookie: the fluent builder, toString()/toArray()/reset(), and the checks that fail serialization
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Http\Cookie;
$c = new Cookie();
echo json_encode($c->toArray()), "\n";
var_dump($c->toString());
$c2 = $c->withName('sid')->withValue('a b;c')->withExpires(time() + 100)->withPath('/p')->withDomain('ex.com')
    ->withSecure(true)->withHttpOnly(true)->withSameSite('Lax')->withPriority('High')->withPartitioned(true);
var_dump($c2 === $c);
echo preg_replace('/expires=[^;]+; Max-Age=\d+/', 'expires=X; Max-Age=N', $c->toString()), "\n";
preg_match('/Max-Age=(\d+)/', $c->toString(), $m);
var_dump($m[1] >= 99 && $m[1] <= 100);
echo json_encode($c->toArray()['httpOnly']), ' ', $c->toArray()['value'], "\n";
// raw: the value is checked instead of encoded
$r = (new Cookie(false))->withName('n')->withValue('a b');
var_dump($r->toString(), $r->toArray()['name']);
echo (new Cookie(false))->withName('n')->withValue('a%20b')->toString(), "\n";
echo (new Cookie())->withName('del')->withValue('')->withPath('/x')->toString(), "\n";
var_dump((new Cookie())->withName('b=d')->withValue('v')->toString());
var_dump((new Cookie())->withName('n')->withValue('v')->withDomain("a b")->toString());
var_dump((new Cookie())->withName('n')->withValue('v')->withExpires(253402300800)->toString());
$c->reset();
echo json_encode($c->toArray()), "\n";
try { (new Cookie())->withValue(); } catch (ArgumentCountError $e) { echo "ArgumentCountError\n"; }
try { serialize(new Cookie()); } catch (Exception $e) { echo $e->getMessage(), "\n"; }
?>
--EXPECTF--
{"name":"","value":"","path":"","domain":"","sameSite":"","priority":"","encode":true,"expires":0,"secure":false,"httpOnly":false,"partitioned":false}

Warning: Swoole\Http\Cookie::toString(): The name cannot be empty in %s on line %d
bool(false)
bool(true)
sid=a+b%3Bc; expires=X; Max-Age=N; path=/p; domain=ex.com; secure; HttpOnly; SameSite=Lax; Priority=High; Partitioned
bool(true)
true a b;c

Warning: Swoole\Http\Cookie::toString(): The value cannot contain ",", ";", " ", "\t", "\r", "\n", "\013", or "\014" in %s on line %d
bool(false)
string(0) ""
n=a%20b
del=deleted; expires=Thu, 01-Jan-1970 00:00:01 GMT; Max-Age=0; path=/x

Warning: Swoole\Http\Cookie::toString(): The name cannot contain "=", ",", ";", " ", "\t", "\r", "\n", "\013", or "\014" in %s on line %d
bool(false)

Warning: Swoole\Http\Cookie::toString(): The domain option cannot contain ",", ";", " ", "\t", "\r", "\n", "\013", or "\014" in %s on line %d
bool(false)

Warning: Swoole\Http\Cookie::toString(): The expires cannot have a year greater than 9999 in %s on line %d
bool(false)
{"name":"","value":"","path":"","domain":"","sameSite":"","priority":"","encode":true,"expires":0,"secure":false,"httpOnly":false,"partitioned":false}
ArgumentCountError
Serialization of 'Swoole\Http\Cookie' is not allowed
