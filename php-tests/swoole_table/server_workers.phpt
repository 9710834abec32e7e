--TEST--
swoole_table: a Table and an Atomic created before the server forks are shared by its workers and task workers and the test process
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';

use Swoole\Atomic;
use Swoole\Table;

$table = new Table(256);
$table->column('n', Table::TYPE_INT);
$table->column('pid', Table::TYPE_INT);
$table->create();
$requests = new Atomic(0);

rsw_run_server(rsw_http_server_fn(function ($req, $resp) use ($table, $requests) {
    $table->incr('hits', 'n');
    $table->set('w' . getmypid(), ['pid' => getmypid()]);
    $requests->add();
    rsw_server()->task('t');
    $resp->end((string) $table->get('hits', 'n'));
}, ['worker_num' => 2, 'task_worker_num' => 1], SWOOLE_PROCESS, [
    'task' => function ($server, $taskId, $src, $data) use ($table) {
        $table->incr('tasks', 'n');
        $table->set('t' . getmypid(), ['pid' => getmypid()]);
        return 'ok';
    },
    'finish' => function () {},
]), function ($port) use ($table, $requests) {
    $last = 0;
    for ($i = 0; $i < 20; $i++) {
        $last = (int) rsw_http_get($port, '/')[2];
    }
    var_dump($last, $table->get('hits', 'n'), $requests->get());
    var_dump(rsw_wait_until(fn () => $table->get('tasks', 'n') === 20, 5));
    $workers = $tasks = 0;
    foreach ($table as $key => $row) {
        $workers += $key[0] === 'w' ? 1 : 0;
        $tasks += $key[0] === 't' && $key !== 'tasks' ? 1 : 0;
    }
    var_dump($workers >= 1, $tasks);
});
?>
--EXPECT--
int(20)
int(20)
int(20)
bool(true)
bool(true)
int(1)
