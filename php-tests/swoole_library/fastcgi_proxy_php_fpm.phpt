--TEST--
swoole_library: Coroutine\FastCGI\Proxy in front of php-fpm serves seed 002's normal.php and a form/upload/cookie/status app exactly as nginx + php-fpm does
--SKIPIF--
<?php
require __DIR__ . '/../include/skipif.inc';
require __DIR__ . '/../include/services.php';
if (!rsw_have_php_fpm()) die('skip php-fpm not installed');
if (!rsw_have_nginx()) die('skip nginx not installed');
if (trim((string) shell_exec('command -v curl')) === '') die('skip curl not installed');
?>
--FILE--
<?php
require __DIR__ . '/../include/services.php';
$root = rsw_tmpdir('rsw_fcgi_root_');
mkdir("$root/vendor");
// Seed 002's normal.php as printed, with the local Respect\Validation stand-in the seed 002 test uses.
file_put_contents("$root/normal.php", <<<'SEED'
<?php
/**
 * Created by PhpStorm.
 * User: shyandsy
 * Date: 2/21/2019
 * Time: 1:45 AM
 */

require_once(__DIR__ . '/vendor/autoload.php');
use Respect\Validation\Validator as V;

try{
    //$this
    $validator = V::create()
        ->key('user', V::email())
        ->key('pass', V::alnum()->length(8, 32))
        ->key('token', V::alnum()->length(1));

    $validator->assert($_GET);

    $email = (string)$_GET['user'];
    $pass = (string)$_GET['pass'];
    $token = (string)$_GET['token'];

}catch(Respect\Validation\Exceptions\NestedValidationException $e){

}
echo 111;
SEED);
file_put_contents("$root/vendor/autoload.php", <<<'FAKE'
<?php
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
                };
                if (!$ok) { return false; }
            }
            return true;
        }
        public function assert(mixed $input): void {
            if (!$this->validate($input)) { throw new Exceptions\NestedValidationException('validation failed'); }
            echo 'valid:';
        }
    }
}
FAKE);
file_put_contents("$root/app.php", <<<'APP'
<?php
switch ($_GET['a'] ?? '') {
    case 'form':
        header('Content-Type: application/json');
        echo json_encode(['post' => $_POST, 'method' => $_SERVER['REQUEST_METHOD'], 'type' => $_SERVER['CONTENT_TYPE'] ?? '']);
        break;
    case 'upload':
        $f = $_FILES['f'] ?? null;
        echo json_encode($f ? ['name' => $f['name'], 'size' => $f['size'], 'error' => $f['error'],
            'md5' => md5_file($f['tmp_name']), 'uploaded' => is_uploaded_file($f['tmp_name']), 'field' => $_POST['note'] ?? null] : 'no file');
        break;
    case 'cookie':
        setcookie('a', '1');
        setcookie('b', 'x y', ['path' => '/p', 'httponly' => true]);
        echo json_encode($_COOKIE);
        break;
    case 'status':
        http_response_code(404);
        echo 'not here';
        break;
    case 'redirect':
        header('Location: /elsewhere', true, 302);
        break;
    case 'teapot':
        header('HTTP/1.1 418 I am a teapot');
        echo 'short and stout';
        break;
    case 'header':
        header('X-App: yes');
        echo $_SERVER['HTTP_X_CLIENT'] ?? 'none';
        break;
    default:
        echo json_encode(['uri' => $_SERVER['REQUEST_URI'], 'qs' => $_SERVER['QUERY_STRING'], 'script' => $_SERVER['SCRIPT_NAME'],
            'method' => $_SERVER['REQUEST_METHOD'], 'get' => $_GET]);
}
APP);
$upload = rsw_tempfile();
file_put_contents($upload, random_bytes(150000));

$fpm = RswPhpFpm::startIn($root);
$nginx = RswNginx::proxyTo($fpm->port, $root);
file_put_contents("$nginx->dir/nginx.conf", str_replace('index index.php;', 'index normal.php;', file_get_contents("$nginx->dir/nginx.conf")));
$nginx->restart();

$port = rsw_free_port();
$dir = rsw_tmpdir();
file_put_contents("$dir/server.php", <<<PHP
<?php
\$proxy = (new Swoole\Coroutine\FastCGI\Proxy('tcp://127.0.0.1:{$fpm->port}', '$root'))->withIndex('normal.php');
\$http = new Swoole\Http\Server('127.0.0.1', $port, SWOOLE_BASE);
\$http->set(['worker_num' => 1, 'log_level' => SWOOLE_LOG_WARNING, 'upload_tmp_dir' => '$dir']);
\$http->on('request', function (\$request, \$response) use (\$proxy) {
    \$proxy->pass(\$request, \$response);
});
\$http->start();
PHP);
$srv = (new ScriptServer("$dir/server.php", $port))->start();

/** Status, the headers that matter, and the body of one curl request. */
function fetch(int $port, array $args): string
{
    $path = array_pop($args);
    $out = shell_exec(implode(' ', array_map('escapeshellarg', array_merge(['curl', '-s', '-i', '--max-time', '5'], $args,
        ["http://127.0.0.1:$port$path"]))));
    [$head, $body] = array_pad(explode("\r\n\r\n", (string) $out, 2), 2, '');
    $lines = explode("\r\n", $head);
    $status = (int) (explode(' ', $lines[0])[1] ?? 0);
    $keep = [];
    foreach (array_slice($lines, 1) as $line) {
        [$name, $value] = array_map('trim', explode(':', $line, 2) + [1 => '']);
        $name = strtolower($name);
        if (in_array($name, ['content-type', 'set-cookie', 'location', 'x-app'], true)) {
            $keep[] = "$name: " . preg_replace('/;\s*charset=UTF-8/i', '', $value);
        }
    }
    sort($keep);
    return $status . ' ' . implode(' | ', $keep) . ' | ' . $body;
}

$cases = [
    'GET / (normal.php, valid)' => ['/?user=a@b.c&pass=abcdefgh1&token=x'],
    'GET /normal.php (invalid)' => ['/normal.php?user=nope'],
    'GET with query' => ['/app.php?x=1&y[]=2&y[]=3&z=%20sp'],
    'POST form' => ['--data', 'name=alice&tags[]=a&tags[]=b&empty=', '/app.php?a=form'],
    'POST multipart upload' => ['-F', "f=@$upload;filename=blob.bin", '-F', 'note=hello', '/app.php?a=upload'],
    'cookies in and out' => ['-H', 'Cookie: sid=abc; theme=dark', '/app.php?a=cookie'],
    'status 404' => ['/app.php?a=status'],
    'redirect 302' => ['/app.php?a=redirect'],
    'status line 418' => ['/app.php?a=teapot'],
    'request header to $_SERVER' => ['-H', 'X-Client: curl-test', '/app.php?a=header'],
];
$same = 0;
foreach ($cases as $label => $args) {
    $viaNginx = fetch($nginx->port, $args);
    $viaProxy = fetch($port, $args);
    if ($viaNginx === $viaProxy) {
        $same++;
        echo "$label: same (", strtok($viaProxy, ' '), ")\n";
    } else {
        echo "$label: DIFFERENT\n  nginx: $viaNginx\n  proxy: $viaProxy\n";
    }
}
echo "$same of ", count($cases), " identical\n";
$srv->stop();
echo $srv->log() === '' ? "clean log\n" : $srv->log();
?>
--EXPECT--
GET / (normal.php, valid): same (200)
GET /normal.php (invalid): same (200)
GET with query: same (200)
POST form: same (200)
POST multipart upload: same (200)
cookies in and out: same (200)
status 404: same (404)
redirect 302: same (302)
status line 418: same (418)
request header to $_SERVER: same (200)
10 of 10 identical
clean log
