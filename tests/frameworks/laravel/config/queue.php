<?php
// config/queue.php: synchronous queue (Octane's provider resolves the queue manager).
return ['default' => 'sync', 'connections' => ['sync' => ['driver' => 'sync']]];
