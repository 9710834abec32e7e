--TEST--
swoole_http_server: seed 002 validation server (swoole_http_server + Respect\Validation) answers "111\n" as text/plain
--DESCRIPTION--
The server script is verbatim from shared/seeds/002_7be2e3fe8ad5643d.txt with only the port replaced; vendor/autoload.php is a
tiny local stand-in for respect/validation written next to it in a temp dir.
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// Valid and invalid query strings both answer 111 (the script catches the validation exception).
require __DIR__ . '/../include/bootstrap.php';
$seed = <<<'SEED'
<?php
/**
 * Created by PhpStorm.
 * User: shyandsy
 * Date: 2/21/2019
 * Time: 1:44 AM
 */
require_once(__DIR__ . '/vendor/autoload.php');
use Respect\Validation\Validator as V;

$http = new swoole_http_server("127.0.0.1", 9000);

$http->on('start', function ($server) {
    echo "Swoole http server is started at http://127.0.0.1:9000\n";
});

$http->on('request', function ($request, $response) {

    try{
        //$this
        $validator = V::create()
            ->key('user', V::email())
            ->key('pass', V::alnum()->length(8, 32))
            ->key('token', V::alnum()->length(1));

        $validator->assert($request->get);

        $email = (string)$request->get['user'];
        $pass = (string)$request->get['pass'];
        $token = (string)$request->get['token'];

    }catch(Respect\Validation\Exceptions\NestedValidationException $e){

    }

    $response->header("Content-Type", "text/plain");
    $response->end("111\n");
});

$http->start();
SEED;
$fake = <<<'FAKE'
<?php
// Local stand-in for composer's autoload with a minimal Respect\Validation (create/key/email/alnum/length/assert).
namespace Respect\Validation\Exceptions {
    class NestedValidationException extends \InvalidArgumentException {}
}
namespace Respect\Validation {
    class Validator {
        private array $rules = [];
        public static function __callStatic(string $name, array $args): self { return (new self())->__call($name, $args); }
        public function __call(string $name, array $args): self {
            if ($name !== 'create') { $this->rules[] = [$name, $args]; }
            return $this;
        }
        public function validate(mixed $input): bool {
            foreach ($this->rules as [$name, $args]) {
                $ok = match ($name) {
                    'key' => is_array($input) && array_key_exists($args[0], $input) && $args[1]->validate($input[$args[0]]),
                    'email' => is_string($input) && filter_var($input, FILTER_VALIDATE_EMAIL) !== false,
                    'alnum' => is_string($input) && preg_match('/^[a-z0-9]*$/i', $input) === 1,
                    'length' => is_string($input) && strlen($input) >= $args[0] && (!isset($args[1]) || strlen($input) <= $args[1]),
                    default => throw new \LogicException("rule $name not faked"),
                };
                if (!$ok) { return false; }
            }
            return true;
        }
        public function assert(mixed $input): void {
            file_put_contents(__DIR__ . '/asserts.log', ($this->validate($input) ? 'valid' : 'invalid') . "\n", FILE_APPEND);
            if (!$this->validate($input)) { throw new Exceptions\NestedValidationException('validation failed'); }
        }
    }
}
FAKE;
$port = rsw_free_port();
$dir = rsw_tmpdir();
mkdir("$dir/vendor");
file_put_contents("$dir/vendor/autoload.php", $fake);
file_put_contents("$dir/server.php", str_replace('9000', (string) $port, $seed));
$srv = (new ScriptServer("$dir/server.php", $port, $dir))->start();
try {
    foreach (['/?user=a@b.c&pass=abcdefgh1&token=x', '/?user=nope&pass=x'] as $path) {
        [$s, $h, $b] = rsw_http_get($port, $path);
        echo $s, ' ', json_encode($b), ' ', $h['content-type'] ?? 'no content-type', "\n";
    }
    rsw_wait_until(fn() => is_file("$dir/vendor/asserts.log"), 1);
    echo str_replace("\n", ' ', (string) @file_get_contents("$dir/vendor/asserts.log")), "\n";
    rsw_check('start callback printed the banner', str_contains($srv->log(), "Swoole http server is started at http://127.0.0.1:$port"), $srv->log());
} finally {
    $code = $srv->stop();
}
echo "exit code: $code\n";
?>
--EXPECT--
200 "111\n" text/plain
200 "111\n" text/plain
valid invalid 
start callback printed the banner: OK
exit code: 0
